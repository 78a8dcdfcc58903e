package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// phaseState collects what one phase measures; the pollers add the
// deliveries of its messages even after it has ended.
type phaseState struct {
	mu       sync.Mutex
	requests []time.Duration
	delivery []time.Duration
	errors   map[string]int
	hostile  map[string]int
}

func (ps *phaseState) request(d time.Duration) {
	ps.mu.Lock()
	ps.requests = append(ps.requests, d)
	ps.mu.Unlock()
}

func (ps *phaseState) delivered(d time.Duration) {
	ps.mu.Lock()
	ps.delivery = append(ps.delivery, d)
	ps.mu.Unlock()
}

func (ps *phaseState) fail(kind string) {
	ps.mu.Lock()
	ps.errors[kind]++
	ps.mu.Unlock()
}

// count adds one outcome of the hostile clients.
func (ps *phaseState) count(kind string) {
	ps.mu.Lock()
	ps.hostile[kind]++
	ps.mu.Unlock()
}

// nonceRE finds the nonce of a normal message in its rendered content.
var nonceRE = regexp.MustCompile(`soak-nonce-(\d+)`)

// nonces numbers the normal messages.
var nonces atomic.Int64

// phase runs the normal traffic for one phase, with the hostile clients
// when mixed, waits for the stragglers, and returns what it measured.
func (s *soak) phase(mixed bool) phaseResult {
	ps := &phaseState{errors: map[string]int{}, hostile: map[string]int{}}
	s.currentMu.Lock()
	s.current = ps
	s.currentMu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), s.c.phase)
	defer cancel()
	var wg sync.WaitGroup
	hostileCtx, stopHostile := context.WithCancel(ctx)
	if mixed {
		s.startHostile(hostileCtx, ps, &wg)
	}
	var normal sync.WaitGroup
	for _, m := range s.normals {
		normal.Add(1)
		go func() {
			defer normal.Done()
			s.normalTraffic(ctx, m, ps)
		}()
	}
	normal.Wait()
	stopHostile()
	wg.Wait()
	// The last messages' deliveries, and the hostile connections' closing.
	time.Sleep(s.c.settle)

	ps.mu.Lock()
	defer ps.mu.Unlock()
	return phaseResult{mixed: mixed, requests: append([]time.Duration(nil), ps.requests...),
		delivery: append([]time.Duration(nil), ps.delivery...), errors: clone(ps.errors), hostile: clone(ps.hostile)}
}

func clone(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// normalTraffic is one normal member until ctx ends: a pause of about
// -think, a message to its channel, a read of its channel's newest 20
// messages, again. The pause is drawn at random between half and one and a
// half of -think, and the first is shorter, so that the members do not
// move in step.
func (s *soak) normalTraffic(ctx context.Context, m *member, ps *phaseState) {
	pause := time.Duration(rand.Float64() * float64(s.c.think))
	to, _ := json.Marshal(m.channel)
	narrow, _ := json.Marshal([]map[string]string{{"operator": "channel", "operand": m.channel}})
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = time.Duration((0.5 + rand.Float64()) * float64(s.c.think))
		nonce := strconv.FormatInt(nonces.Add(1), 10)
		start := time.Now()
		s.sent.Store(nonce, sending{at: start, phase: ps})
		err := s.api.Call(m.as, http.MethodPost, "/messages", url.Values{"type": {"stream"}, "to": {string(to)},
			"topic":   {fmt.Sprintf("topic %d", rand.IntN(5))},
			"content": {fmt.Sprintf("A normal message (soak-nonce-%s) with **some** _markdown_ and a [link](https://example.com/n/%s).", nonce, nonce)}}, nil)
		if err != nil {
			ps.fail(errorKind("send", err))
			continue
		}
		ps.request(time.Since(start))

		start = time.Now()
		err = s.api.Call(m.as, http.MethodGet, "/messages", url.Values{"anchor": {"newest"}, "num_before": {"20"},
			"num_after": {"0"}, "narrow": {string(narrow)}}, nil)
		if err != nil {
			ps.fail(errorKind("read", err))
			continue
		}
		ps.request(time.Since(start))
	}
}

// poll keeps a long-poll open on m's queue until the run ends, and
// records each normal message's delivery latency: from the start of its
// send to its receipt here.
func (s *soak) poll(m *member) {
	defer s.pollers.Done()
	for {
		select {
		case <-s.done:
			return
		default:
		}
		var res struct {
			Events []struct {
				ID      int64  `json:"id"`
				Type    string `json:"type"`
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"events"`
		}
		err := s.api.Call(m.as, http.MethodGet, "/events", url.Values{"queue_id": {m.queue},
			"last_event_id": {strconv.FormatInt(m.last, 10)}}, &res)
		received := time.Now()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			s.currentMu.Lock()
			ps := s.current
			s.currentMu.Unlock()
			ps.fail(errorKind("events", err))
			time.Sleep(time.Second)
			continue
		}
		for _, e := range res.Events {
			m.last = e.ID
			if e.Type != "message" {
				continue
			}
			match := nonceRE.FindStringSubmatch(e.Message.Content)
			if match == nil {
				continue
			}
			if v, ok := s.sent.Load(match[1]); ok {
				sd := v.(sending)
				sd.phase.delivered(received.Sub(sd.at))
			}
		}
	}
}
