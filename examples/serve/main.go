// Command serve shows the smallest program that serves the chat API over
// HTTP with SQLite storage: it opens (or creates) chat.db, makes an
// organization on the first run, and serves /api/v1 on 127.0.0.1:9992
// until interrupted.
//
//	go run ./examples/serve
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/sqlite"
)

func main() {
	store, err := sqlite.Open("chat.db")
	if err != nil {
		log.Fatal(err)
	}
	svc := chat.New(store, chat.Config{})
	defer svc.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	orgs, err := svc.Orgs(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if len(orgs) == 0 {
		org, err := svc.CreateOrg(ctx, chat.NewOrg{
			Name: "Example", Host: "127.0.0.1:9992",
			OwnerEmail: "owner@example.com", OwnerName: "Example Owner",
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("curl -sSu %s:%s http://127.0.0.1:9992/api/v1/users\n", org.Email, org.APIKey)
	}

	srv := &http.Server{Addr: "127.0.0.1:9992", Handler: httpserver.New(svc, httpserver.Options{})}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
