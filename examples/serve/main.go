// Command serve shows the smallest program that serves the chat API over
// HTTP with SQLite storage: it opens (or creates) chat.db, makes an
// organization on the first run, and serves /api/v1 on 127.0.0.1:9992
// until interrupted.
//
//	go run ./examples/serve
//
// Flags: -listen ADDR (port 0 picks a free port; the address is printed),
// -db FILE, and -once, which stops the server cleanly after it has
// answered one request (CI runs it so).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/sqlite"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9992", "address to listen on")
	db := flag.String("db", "chat.db", "SQLite database file")
	once := flag.Bool("once", false, "stop after answering one request")
	flag.Parse()

	store, err := sqlite.Open(*db)
	if err != nil {
		log.Fatal(err)
	}
	svc := chat.New(store, chat.Config{})
	defer svc.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	orgs, err := svc.Orgs(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if len(orgs) == 0 {
		org, err := svc.CreateOrg(ctx, chat.NewOrg{
			Name: "Example", Host: ln.Addr().String(),
			OwnerEmail: "owner@example.com", OwnerName: "Example Owner",
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("curl -sSu %s:%s %s/api/v1/users\n", org.Email, org.APIKey, base)
	}

	var handler http.Handler = httpserver.New(svc, httpserver.Options{})
	if *once {
		// Stop the server once the first answer is written.
		api, done := handler, sync.OnceFunc(stop)
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.ServeHTTP(w, r)
			done()
		})
	}
	srv := &http.Server{Handler: handler}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	fmt.Printf("serving on %s\n", base)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
