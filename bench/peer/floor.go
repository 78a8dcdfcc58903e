package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/bench/internal/chatdproc"
	"github.com/teamchat/chat/internal/gcpace"
)

// The long-poll floor is what a delivery costs a server that does nothing
// but answer the reference API's long-polls: this program started as
// "peer serve", with chatd's HTTP server settings and collector pace, and
// the routes the listeners' workload calls. It reads no credentials and
// keeps one list of events that every queue shares; an answer is the
// events after last_event_id, encoded once each, as chatd encodes them.
// Beside the peer, its listeners' rows are the part of chatd's that the
// protocol costs: an HTTP answer and a new request for every delivery,
// where the peer writes a WebSocket frame.

// floorTarget drives the floor as chatd is driven; it serves only the
// listeners' workload.
type floorTarget struct{ *chatdTarget }

// errFloor answers the workloads the floor does not serve.
var errFloor = errors.New("the long-poll floor serves only the listeners' workload")

func startFloor() (*floorTarget, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "peer-floor-")
	if err != nil {
		return nil, err
	}
	t := &chatdTarget{name: "long-poll floor", dir: dir}
	if t.proc, err = chatdproc.Start(self, dir); err != nil {
		return nil, err
	}
	t.api = chatdproc.NewClient(t.proc.Port, 512)
	t.owner = t.proc.Owner
	return &floorTarget{t}, nil
}

// Setup makes the listeners' credentials, which the floor does not read.
func (t *floorTarget) Setup(s shape) error {
	t.keys = make([]chatdproc.Account, s.sessions)
	for i := range t.keys {
		t.keys[i] = chatdproc.Account{ID: int64(i + 1), Email: t.email(i), Key: "floor"}
	}
	return nil
}

func (t *floorTarget) React(int, string) error { return errFloor }
func (t *floorTarget) ListUsers() error        { return errFloor }
func (t *floorTarget) Newest50() error         { return errFloor }
func (t *floorTarget) CreateUser(int) error    { return errFloor }

// floorEvents is the floor's one list of events, kept for the whole run
// (a benchmark's few hundred messages): the floor serves nothing else.
type floorEvents struct {
	mu      sync.Mutex
	encoded [][]byte      // event i, as JSON
	wake    chan struct{} // closed and replaced by each new event
	queues  int
}

// serveFloor is "peer serve --listen ADDR ...": it prints credentials as
// chatd's first start does (chatdproc.Start waits for them) and serves
// until it is stopped.
func serveFloor(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:9991", "address")
	fs.String("data", "", "unused")
	fs.Parse(args)
	defer gcpace.Start(32 << 20).Stop() // chatd's default headroom

	srv := &http.Server{Addr: *listen, Handler: newFloor(), ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes: 64 << 10, IdleTimeout: 120 * time.Second}
	fmt.Println("owner email: owner@floor.example.com")
	fmt.Println("owner API key: floor")
	log.Fatal(srv.ListenAndServe())
}

// newFloor returns the floor's routes.
func newFloor() http.Handler {
	ev := &floorEvents{wake: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/register", ev.register)
	mux.HandleFunc("GET /api/v1/events", ev.events)
	mux.HandleFunc("DELETE /api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		writeFloor(w, []byte(`{"result":"success","msg":""}`))
	})
	mux.HandleFunc("POST /api/v1/messages", ev.send)
	return mux
}

func writeFloor(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func (ev *floorEvents) register(w http.ResponseWriter, r *http.Request) {
	ev.mu.Lock()
	ev.queues++
	q, last := ev.queues, len(ev.encoded)-1
	ev.mu.Unlock()
	writeFloor(w, fmt.Appendf(nil, `{"result":"success","msg":"","queue_id":"q%d","last_event_id":%d}`, q, last))
}

// events answers with the events after last_event_id, waiting up to 50 s
// (as chatd's heartbeat) for one.
func (ev *floorEvents) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	queue := q.Get("queue_id")
	last, _ := strconv.Atoi(q.Get("last_event_id"))
	timeout := time.NewTimer(50 * time.Second)
	defer timeout.Stop()
	for {
		ev.mu.Lock()
		ready, wake := ev.encoded[min(last+1, len(ev.encoded)):], ev.wake
		ev.mu.Unlock()
		if len(ready) > 0 {
			body := append([]byte(`{"result":"success","msg":"","events":[`), ready[0]...)
			for _, e := range ready[1:] {
				body = append(append(body, ','), e...)
			}
			writeFloor(w, append(append(append(body, `],"queue_id":"`...), queue...), `"}`...))
			return
		}
		select {
		case <-wake:
		case <-timeout.C:
			writeFloor(w, []byte(`{"result":"success","msg":"","events":[],"queue_id":"`+queue+`"}`))
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (ev *floorEvents) send(w http.ResponseWriter, r *http.Request) {
	content := "<p>" + strings.TrimSpace(r.FormValue("content")) + "</p>"
	ev.mu.Lock()
	id := len(ev.encoded)
	streamID := int64(3)
	m := chat.MessageView{ID: int64(id + 1), SenderID: 1, SenderFullName: "Owner", SenderEmail: "owner@floor.example.com",
		Content: content, ContentType: "text/html", RecipientID: 3, Timestamp: time.Now().Unix(), Client: "Go-http-client",
		Subject: "bench", TopicLinks: []chat.TopicLink{}, Reactions: []chat.ReactionView{}, Submessages: []any{},
		DisplayRecipient: "listen", Type: "stream", StreamID: &streamID}
	message, _ := json.Marshal(m)
	ev.encoded = append(ev.encoded, fmt.Appendf(nil, `{"id":%d,"type":"message","message":%s,"flags":[]}`, id, message))
	close(ev.wake)
	ev.wake = make(chan struct{})
	ev.mu.Unlock()
	writeFloor(w, fmt.Appendf(nil, `{"result":"success","msg":"","id":%d}`, id+1))
}
