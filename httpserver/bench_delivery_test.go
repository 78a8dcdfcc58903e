package httpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
)

// deliveryMessages is the number of messages each side of
// BenchmarkDeliveryLatency sends per op, in deliveryBlocks alternating
// blocks.
const (
	deliveryMessages = 100
	deliveryBlocks   = 10
)

// BenchmarkDeliveryLatency measures send→delivery latency over HTTP on
// loopback: n users (200 and 1 000) subscribed to one channel each keep a
// long-poll GET /events open on a queue registered for messages, and the
// channel's owner sends messages with POST /messages, one at a time,
// waiting until every queue has received the message (and every client has
// polled again) before the next. A message's latency at a client is the
// time from the start of its POST to the client's having decoded the event.
//
// Alternating with it in blocks of ten messages, the same clients poll a
// bare net/http server ("floor") whose handler waits on a channel that a
// POST closes, and answers with an events body encoded before the POST,
// the size of the service's (the message as the service delivered it): the
// physical floor of waking n long-polls on this machine, with the same
// client, transport and decoding.
//
// It reports, over the deliveries of deliveryMessages messages per side,
// the p50 and p99 in ms of each side, their ratios service/floor, and the
// median POST /messages time. One op is one such run; use -benchtime 1x.
// PostgreSQL runs when CHAT_TEST_POSTGRES_DSN names a database (see
// scripts/with-postgres.sh), with its events through NOTIFY
// (postgres.Events), as chatd runs it.
func BenchmarkDeliveryLatency(b *testing.B) {
	backends := []struct {
		name string
		open func(tb testing.TB) storage.Store
	}{{"sqlite", backendsForBench[1].open}}
	if pgtest.Available() {
		backends = append(backends, struct {
			name string
			open func(tb testing.TB) storage.Store
		}{"postgres", func(tb testing.TB) storage.Store {
			st, err := postgres.Open(context.Background(), pgtest.Schema(tb))
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { st.Close() })
			return st
		}})
	}
	for _, backend := range backends {
		for _, n := range []int{200, 1000} {
			b.Run(fmt.Sprintf("%s/queues=%d", backend.name, n), func(b *testing.B) {
				d := newDeliveryBench(b, backend.open(b), n)
				defer d.close()
				for b.Loop() {
					d.run()
				}
				d.report()
			})
		}
	}
}

// deliveryBench is the state of BenchmarkDeliveryLatency: the chat server
// and the floor server, and the latencies measured on each.
type deliveryBench struct {
	b          *testing.B
	n          int
	chat       *httptest.Server
	floor      *floorServer
	floorHTTP  *httptest.Server
	owner      account
	channelID  int64
	chatSide   *pollers
	floorSide  *pollers
	chatLat    []time.Duration
	floorLat   []time.Duration
	postTimes  []float64
	message    json.RawMessage // the message as the service delivered it
	sent       int
	sideClient *http.Client
	svc        *chat.Service
}

func newDeliveryBench(b *testing.B, store storage.Store, n int) *deliveryBench {
	ctx := context.Background()
	cfg := chat.Config{}
	if pg, ok := store.(*postgres.Store); ok {
		// As chatd runs on PostgreSQL: events travel through NOTIFY.
		hub := chat.NewHub(chat.HubOptions{})
		events, err := postgres.NewEvents(ctx, pg, hub, postgres.EventsOptions{Lost: hub.DropQueues})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { hub.Close(); events.Close() })
		cfg.Hub, cfg.Events = hub, events
	}
	svc := chat.New(store, cfg)
	b.Cleanup(func() { svc.Close() })
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bench", Host: host, OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		b.Fatal(err)
	}
	ids := seedUsers(b, store, org.RealmID, n)
	res, err := svc.Subscribe(ctx, chat.AsUser(org.UserID), chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: "delivery"}}, Principals: &chat.Principals{IDs: append([]int64{org.UserID}, ids...)},
	})
	if err != nil || len(res.Subscribed) != n+1 {
		b.Fatalf("subscribe: %v, %d subscribed", err, len(res.Subscribed))
	}
	d := &deliveryBench{b: b, n: n, owner: account{org.UserID, org.Email, org.APIKey}, svc: svc}
	d.chat = httptest.NewServer(httpserver.New(svc, httpserver.Options{}))
	d.floor = &floorServer{wake: make(chan struct{})}
	d.floorHTTP = httptest.NewServer(d.floor)
	d.sideClient = &http.Client{}

	subs, err := svc.Subscriptions(ctx, chat.AsUser(org.UserID), false)
	if err != nil || len(subs) != 1 {
		b.Fatalf("subscriptions: %v, %v", subs, err)
	}
	d.channelID = subs[0].StreamID

	d.chatSide = newPollers(b, d.chat.URL, n)
	d.floorSide = newPollers(b, d.floorHTTP.URL, n)
	for i := range n {
		as := &account{ids[i], fmt.Sprintf("seed%07d@example.com", i), fmt.Sprintf("seed%028d", i)}
		body := benchPost(b, d.sideClient, http.MethodPost, d.chat.URL+"/api/v1/register", as, url.Values{
			"event_types": {`["message"]`}, "fetch_event_types": {`[]`}})
		var reg struct {
			QueueID     string `json:"queue_id"`
			LastEventID int64  `json:"last_event_id"`
		}
		if err := json.Unmarshal([]byte(body), &reg); err != nil {
			b.Fatal(err)
		}
		d.chatSide.clients[i] = poller{as: as, queue: reg.QueueID, last: reg.LastEventID}
		d.floorSide.clients[i] = poller{as: as, queue: "floor", last: 0}
	}
	d.chatSide.start()
	d.floorSide.start()
	d.chatSide.waitPolling()
	d.floorSide.waitPolling()
	// One message first, to warm the service up and to take the shape of
	// its message event for the floor.
	d.sendChat()
	d.message = d.chatSide.sample.Load().(json.RawMessage)
	d.chatLat, d.postTimes = nil, nil
	return d
}

// run sends deliveryMessages messages on each side, alternating blocks
// and which side goes first.
func (d *deliveryBench) run() {
	per := deliveryMessages / deliveryBlocks
	for block := range deliveryBlocks {
		sides := []func(){
			func() {
				for range per {
					d.sendChat()
				}
			},
			func() {
				for range per {
					d.sendFloor()
				}
			},
		}
		sides[block%2]()
		sides[1-block%2]()
	}
}

// gap is the pause after every client has polled again, so that the
// server has taken each poll (every GET /events reads its user and
// organization first) before the next message.
func (d *deliveryBench) gap() {
	time.Sleep(10*time.Millisecond + time.Duration(d.n)*80*time.Microsecond)
}

func (d *deliveryBench) sendChat() {
	d.sent++
	form := url.Values{"type": {"stream"}, "to": {strconv.FormatInt(d.channelID, 10)}, "topic": {"latency"},
		"content": {fmt.Sprintf("Message **%d** of the delivery benchmark, with a [link](https://example.com/%d).", d.sent, d.sent)}}
	lat := d.chatSide.deliver(func() {
		start := time.Now()
		benchPost(d.b, d.sideClient, http.MethodPost, d.chat.URL+"/api/v1/messages", &d.owner, form)
		d.postTimes = append(d.postTimes, float64(time.Since(start))/1e6)
	})
	d.chatLat = append(d.chatLat, lat...)
	d.gap()
}

func (d *deliveryBench) sendFloor() {
	d.floor.mu.Lock()
	next := d.floor.id + 1
	d.floor.mu.Unlock()
	payload := fmt.Appendf(nil, `{"result":"success","msg":"","events":[{"type":"message","id":%d,"message":%s,"flags":[]}],"queue_id":"floor"}`, next, d.message)
	lat := d.floorSide.deliver(func() {
		r, _ := http.NewRequest(http.MethodPost, d.floorHTTP.URL+"/publish", strings.NewReader(""))
		d.floor.next.Store(&payload)
		resp, err := d.sideClient.Do(r)
		if err != nil {
			d.b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	})
	d.floorLat = append(d.floorLat, lat...)
	d.gap()
}

func (d *deliveryBench) report() {
	pct := func(ls []time.Duration, p float64) float64 {
		s := slices.Clone(ls)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))]) / 1e6
	}
	if len(d.chatLat) == 0 || len(d.floorLat) == 0 {
		d.b.Fatal("no deliveries measured")
	}
	c50, c99, f50, f99 := pct(d.chatLat, 0.5), pct(d.chatLat, 0.99), pct(d.floorLat, 0.5), pct(d.floorLat, 0.99)
	d.b.ReportMetric(c50, "p50-ms")
	d.b.ReportMetric(c99, "p99-ms")
	d.b.ReportMetric(f50, "floor-p50-ms")
	d.b.ReportMetric(f99, "floor-p99-ms")
	d.b.ReportMetric(c50/f50, "p50/floor")
	d.b.ReportMetric(c99/f99, "p99/floor")
	d.b.ReportMetric(median(d.postTimes), "post-ms")
	d.b.ReportMetric(float64(len(d.chatLat)/d.n), "messages")
}

// close answers every long-poll and lets the clients end before the
// servers close, so that no request is cut off midway.
func (d *deliveryBench) close() {
	d.chatSide.stop(d.svc.Drain)
	d.floorSide.stop(d.floor.shutdown)
	d.chat.Close()
	d.floorHTTP.Close()
}

// floorServer answers GET /api/v1/events with the latest published body
// once its id is past the client's last_event_id, waiting for it when it
// is not, and POST /publish by publishing the body set in next.
type floorServer struct {
	mu     sync.Mutex
	id     int64
	body   []byte
	wake   chan struct{}
	next   atomic.Pointer[[]byte]
	closed bool
}

func (f *floorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		f.mu.Lock()
		f.id++
		f.body = *f.next.Load()
		close(f.wake)
		f.wake = make(chan struct{})
		f.mu.Unlock()
		w.Write([]byte(`{"result":"success","msg":""}`))
		return
	}
	last, _ := strconv.ParseInt(r.URL.Query().Get("last_event_id"), 10, 64)
	f.mu.Lock()
	if f.id <= last && !f.closed {
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		}
		f.mu.Lock()
	}
	body := f.body
	if f.id <= last {
		body = []byte(`{"result":"success","msg":"","events":[],"queue_id":"floor"}`)
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (f *floorServer) shutdown() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.wake)
	}
}

// pollers are n clients, each long-polling GET /events of one queue in a
// goroutine of its own.
type pollers struct {
	b       *testing.B
	base    string
	client  *http.Client
	clients []poller
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// polling counts the clients with a request sent or about to be.
	polling atomic.Int64
	// stopping makes each client end after its current request.
	stopping atomic.Bool
	// sentAt is the start of the current send; pending counts the
	// deliveries of it still to come, and done is closed at the last.
	mu      sync.Mutex
	sentAt  time.Time
	pending int
	done    chan struct{}
	lat     []time.Duration
	// sample is the first message event's message, as delivered.
	sample atomic.Value
}

type poller struct {
	as    *account
	queue string
	last  int64
}

func newPollers(b *testing.B, base string, n int) *pollers {
	ctx, cancel := context.WithCancel(context.Background())
	return &pollers{b: b, base: base, clients: make([]poller, n), ctx: ctx, cancel: cancel,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n + 10}}}
}

func (p *pollers) start() {
	for i := range p.clients {
		p.wg.Add(1)
		go p.poll(&p.clients[i])
	}
}

// waitPolling waits until every client has sent its next request.
func (p *pollers) waitPolling() {
	deadline := time.Now().Add(time.Minute)
	for p.polling.Load() < int64(len(p.clients)) {
		if time.Now().After(deadline) {
			p.b.Fatalf("only %d of %d clients polling", p.polling.Load(), len(p.clients))
		}
		time.Sleep(time.Millisecond)
	}
}

func (p *pollers) poll(c *poller) {
	defer p.wg.Done()
	for !p.stopping.Load() {
		target := p.base + "/api/v1/events?" + url.Values{"queue_id": {c.queue}, "last_event_id": {strconv.FormatInt(c.last, 10)}}.Encode()
		r, _ := http.NewRequestWithContext(p.ctx, http.MethodGet, target, nil)
		r.Host = host
		r.SetBasicAuth(c.as.email, c.as.key)
		p.polling.Add(1)
		resp, err := p.client.Do(r)
		if err != nil {
			if !p.stopping.Load() {
				p.b.Errorf("GET /events: %v", err)
			}
			return
		}
		var res struct {
			Events []struct {
				ID      int64           `json:"id"`
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
			} `json:"events"`
		}
		err = json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		received := time.Now()
		p.polling.Add(-1)
		if p.stopping.Load() {
			return
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			if p.ctx.Err() == nil {
				p.b.Errorf("GET /events: status %d, %v", resp.StatusCode, err)
			}
			return
		}
		for _, e := range res.Events {
			c.last = e.ID
			if e.Type != "message" {
				continue
			}
			var m struct {
				ID      int64  `json:"id"`
				Content string `json:"content"`
			}
			if err := json.Unmarshal(e.Message, &m); err != nil {
				p.b.Errorf("message event: %v", err)
				return
			}
			if p.sample.Load() == nil {
				p.sample.Store(e.Message)
			}
			p.mu.Lock()
			p.lat = append(p.lat, received.Sub(p.sentAt))
			p.pending--
			if p.pending == 0 {
				close(p.done)
			}
			p.mu.Unlock()
		}
	}
}

// deliver runs send, waits until every client has received one message
// and polled again, and returns the latencies.
func (p *pollers) deliver(send func()) []time.Duration {
	p.mu.Lock()
	p.sentAt, p.pending, p.done, p.lat = time.Now(), len(p.clients), make(chan struct{}), nil
	done := p.done
	p.mu.Unlock()
	send()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		p.b.Fatalf("a message did not reach every client")
	}
	p.waitPolling()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lat
}

// stop makes every client end after its current request, calls answer,
// which must answer the long-polls, waits for the clients (a minute at
// most) and cancels any request still open.
func (p *pollers) stop(answer func()) {
	p.stopping.Store(true)
	answer()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		p.b.Errorf("clients still polling a minute after the server drained")
	}
	p.cancel()
	<-done
}
