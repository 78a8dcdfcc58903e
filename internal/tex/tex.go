// Package tex renders TeX math as the reference server does: with KaTeX,
// into KaTeX's HTML (MathML for readers, spans for the eye, the source in
// an annotation that zulip-terminal shows). The reference runs KaTeX in
// Node.js; here KaTeX's own build (katex.min.js, version 0.16.22, the
// version whose output the reference's rendering fixtures hold; MIT
// licensed, LICENSE.katex) runs in goja, a JavaScript interpreter written
// in Go, so that chatd needs no other program.
package tex

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

//go:embed katex.min.js
var katexJS string

// engines bounds the interpreters kept with KaTeX loaded (each holds
// about 6 MiB): half the CPUs, at least one, as the service's heavy work
// leaves the other half to every other request, so that messages of long
// formulas sent in a stream cannot take every CPU. Renders beyond it wait
// for an engine, until their deadline.
var engines = max(1, runtime.GOMAXPROCS(0)/2)

// maxCallStack bounds an interpreter's JavaScript call depth. KaTeX
// parses groups recursively: "{{{…}}}" nested thousands deep would
// otherwise grow the stack without bound; past it the render fails as
// TeX KaTeX cannot parse does.
const maxCallStack = 4096

// ErrBudget reports a render that its budget ended: waiting for an
// engine, or interrupted.
var ErrBudget = errors.New("tex: rendering budget spent")

// engine is one interpreter with KaTeX loaded.
type engine struct {
	vm     *goja.Runtime
	render goja.Callable
	inline goja.Value // {displayMode: false}
	block  goja.Value // {displayMode: true}
}

var (
	program = sync.OnceValues(func() (*goja.Program, error) {
		return goja.Compile("katex.min.js", katexJS, true)
	})
	// idle holds the engines not rendering; alive holds a token for each
	// engine made, so that at most engines exist.
	idle  = make(chan *engine, engines)
	alive = make(chan struct{}, engines)
)

// Render renders src, inline or as a display (centred, a block of its
// own), with KaTeX's defaults otherwise, as the reference's KaTeX does.
// It fails with KaTeX's error when KaTeX cannot render src (a parse error,
// an unknown command; the reference then shows the source in a tex-error
// span), and with ErrBudget when budget passes first, waiting for an
// engine included; the making of an engine, once per engine, is not
// counted. It is safe for concurrent use.
func Render(src string, display bool, budget time.Duration) (string, error) {
	deadline := time.Now().Add(budget)
	e, made, err := take(deadline)
	if err != nil {
		return "", err
	}
	if made {
		deadline = time.Now().Add(budget)
	} else if !time.Now().Before(deadline) {
		idle <- e
		return "", ErrBudget
	}
	html, reuse, err := e.run(src, display, deadline)
	if reuse {
		idle <- e
	} else {
		<-alive // an interrupted interpreter may be halfway through anything
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(html), nil
}

// take returns an idle engine, or makes one while fewer than engines
// exist (and reports it did), or waits for one until deadline.
func take(deadline time.Time) (e *engine, made bool, err error) {
	select {
	case e := <-idle:
		return e, false, nil
	default:
	}
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case e := <-idle:
		return e, false, nil
	case alive <- struct{}{}:
		e, err := newEngine()
		if err != nil {
			<-alive
		}
		return e, true, err
	case <-wait.C:
		return nil, false, ErrBudget
	}
}

// newEngine makes an interpreter and loads KaTeX into it.
func newEngine() (*engine, error) {
	prog, err := program()
	if err != nil {
		return nil, err
	}
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStack)
	if _, err := vm.RunProgram(prog); err != nil {
		return nil, err
	}
	katex := vm.Get("katex")
	if katex == nil {
		return nil, errors.New("tex: katex.min.js defined no katex")
	}
	render, ok := goja.AssertFunction(katex.ToObject(vm).Get("renderToString"))
	if !ok {
		return nil, errors.New("tex: katex has no renderToString")
	}
	e := &engine{vm: vm, render: render}
	for _, o := range []struct {
		v       *goja.Value
		display bool
	}{{&e.inline, false}, {&e.block, true}} {
		opts := vm.NewObject()
		if err := opts.Set("displayMode", o.display); err != nil {
			return nil, err
		}
		*o.v = opts
	}
	return e, nil
}

// run renders src on e, interrupted at deadline. It reports whether e
// may render again: not after an interrupt or a panic.
func (e *engine) run(src string, display bool, deadline time.Time) (html string, reuse bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			html, reuse, err = "", false, fmt.Errorf("tex: interpreter panicked: %v", p)
		}
	}()
	stop := time.AfterFunc(time.Until(deadline), func() { e.vm.Interrupt(ErrBudget) })
	opts := e.inline
	if display {
		opts = e.block
	}
	v, err := e.render(goja.Undefined(), e.vm.ToValue(src), opts)
	if !stop.Stop() {
		return "", false, ErrBudget // the interrupt fired, or is firing
	}
	if err != nil {
		return "", true, err
	}
	return v.String(), true, nil
}
