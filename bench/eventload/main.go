// Command eventload measures event delivery: it serves the API on a
// loopback port, registers one event queue per user for many users, keeps a
// long-poll open on every queue, publishes events that reach all of them,
// and reports delivery latency percentiles (publish to receipt by each
// client) and the memory each queue costs.
//
//	go run ./bench/eventload -queues 1000 -events 50
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/memory"
)

func main() {
	queues := flag.Int("queues", 1000, "event queues, one per user, each long-polling")
	events := flag.Int("events", 50, "events to publish, each reaching every queue")
	gap := flag.Duration("gap", 20*time.Millisecond, "pause between published events")
	flag.Parse()
	if err := run(*queues, *events, *gap); err != nil {
		log.Fatal(err)
	}
}

type client struct {
	email, key, queue string
}

func run(nQueues, nEvents int, gap time.Duration) error {
	ctx := context.Background()
	svc := chat.New(memory.New(), chat.Config{})
	defer svc.Close()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Load", Host: "localhost", OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		return err
	}
	// The toggled user's (de)activation is the event every client gets.
	toggled, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "toggled@example.com", FullName: "Toggled User"})
	if err != nil {
		return err
	}
	clients := make([]client, nQueues)
	for i := range clients {
		u, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: fmt.Sprintf("user%d@example.com", i), FullName: fmt.Sprintf("User %d", i)})
		if err != nil {
			return err
		}
		clients[i] = client{email: u.Email, key: u.APIKey}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: httpserver.New(svc, httpserver.Options{})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String() + "/api/v1"
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: nQueues + 10, MaxConnsPerHost: 0}}

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range clients {
		var res struct {
			QueueID string `json:"queue_id"`
		}
		if err := call(httpClient, http.MethodPost, base+"/register", &clients[i], url.Values{"event_types": {`["realm_user"]`}, "fetch_event_types": {`[]`}}, &res); err != nil {
			return err
		}
		clients[i].queue = res.QueueID
	}

	published := make([]time.Time, nEvents)
	var publishedMu sync.Mutex
	latencies := make([][]time.Duration, nQueues)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			for last < nEvents-1 {
				var res struct {
					Events []struct {
						ID   int    `json:"id"`
						Type string `json:"type"`
					} `json:"events"`
				}
				err := call(httpClient, http.MethodGet, base+"/events", &clients[i], url.Values{
					"queue_id": {clients[i].queue}, "last_event_id": {fmt.Sprint(last)}}, &res)
				received := time.Now()
				if err != nil {
					log.Printf("client %d: %v", i, err)
					return
				}
				for _, e := range res.Events {
					last = e.ID
					if e.Type == "heartbeat" {
						continue
					}
					publishedMu.Lock()
					at := published[e.ID]
					publishedMu.Unlock()
					latencies[i] = append(latencies[i], received.Sub(at))
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // let every poll reach the server
	var during runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&during)

	for k := range nEvents {
		publishedMu.Lock()
		published[k] = time.Now()
		publishedMu.Unlock()
		if k%2 == 0 {
			err = svc.DeactivateUser(ctx, chat.AsUser(org.UserID), toggled.UserID)
		} else {
			err = svc.ReactivateUser(ctx, chat.AsUser(org.UserID), toggled.UserID)
		}
		if err != nil {
			return err
		}
		time.Sleep(gap)
	}
	wg.Wait()

	var all []time.Duration
	for _, l := range latencies {
		all = append(all, l...)
	}
	slices.Sort(all)
	if len(all) == 0 {
		return fmt.Errorf("no event was delivered")
	}
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("queues %d, events %d, deliveries %d (want %d)\n", nQueues, nEvents, len(all), nQueues*nEvents)
	fmt.Printf("latency p50 %v  p90 %v  p99 %v  max %v\n", pct(0.50), pct(0.90), pct(0.99), all[len(all)-1])
	fmt.Printf("heap per queue with a long-poll open (queue + held request + connection): %.1f KiB\n",
		float64(during.HeapAlloc-before.HeapAlloc)/float64(nQueues)/1024)
	if len(all) != nQueues*nEvents {
		os.Exit(1)
	}
	return nil
}

// call sends one API request and decodes the answer into out.
func call(c *http.Client, method, target string, cl *client, form url.Values, out any) error {
	var req *http.Request
	var err error
	if method == http.MethodGet {
		req, err = http.NewRequest(method, target+"?"+form.Encode(), nil)
	} else {
		req, err = http.NewRequest(method, target, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	if err != nil {
		return err
	}
	req.SetBasicAuth(cl.email, cl.key)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var body map[string]any
		json.NewDecoder(res.Body).Decode(&body)
		return fmt.Errorf("%s %s: %d %v", method, target, res.StatusCode, body)
	}
	return json.NewDecoder(res.Body).Decode(out)
}
