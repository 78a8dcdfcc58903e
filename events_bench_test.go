package chat_test

import (
	"context"
	"fmt"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// BenchmarkPerQueueEvents measures the operations whose events take a form
// per event queue, on the memory store with the built-in hub: a channel of
// 100 subscribers, each with one queue (half of them wanting HTML, half
// Markdown), receives a message, an edit of it, and a typing notification.
// One op is one operation with its delivery to the 100 queues.
func BenchmarkPerQueueEvents(b *testing.B) {
	ctx := context.Background()
	svc := chat.New(memory.New(), chat.Config{PasswordCost: bcrypt.MinCost})
	defer svc.Close()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bench", OwnerEmail: "o@example.com", OwnerName: "Owen Owner"})
	if err != nil {
		b.Fatal(err)
	}
	ids := []int64{org.UserID}
	for i := range 99 {
		res, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: fmt.Sprintf("u%d@example.com", i), FullName: fmt.Sprintf("User %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, res.UserID)
	}
	if _, err := svc.Subscribe(ctx, chat.AsUser(org.UserID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "bench"}},
		Principals: &chat.Principals{IDs: ids}}); err != nil {
		b.Fatal(err)
	}
	type q struct {
		user int64
		id   string
		last int64
	}
	queues := make([]q, len(ids))
	for i, id := range ids {
		st, err := svc.Register(ctx, chat.AsUser(id), chat.RegisterRequest{EventTypes: []string{"message", "update_message", "typing"},
			FetchEventTypes: []string{}, ApplyMarkdown: i%2 == 0,
			ClientCapabilities: chat.ClientCapabilities{StreamTypingNotifications: true}})
		if err != nil {
			b.Fatal(err)
		}
		queues[i] = q{user: id, id: st["queue_id"].(string), last: -1}
	}
	// drain acknowledges every queue's events, so that none overflows.
	drain := func() {
		for i := range queues {
			es, err := svc.GetEvents(ctx, chat.AsUser(queues[i].user), queues[i].id, queues[i].last, true)
			if err != nil {
				b.Fatal(err)
			}
			if len(es) > 0 {
				queues[i].last = es[len(es)-1].ID
			}
		}
	}
	topic := "load"
	to := &chat.MessageTo{Names: []string{"bench"}}
	send := func(i int) int64 {
		id, err := svc.SendMessage(ctx, chat.AsUser(org.UserID), chat.SendMessageRequest{Type: "channel", To: to, Topic: &topic,
			Content: fmt.Sprintf("message **%d** with a [link](https://example.com/%d)", i, i), Client: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		return id
	}
	run := func(b *testing.B, op func(i int)) {
		for i := 0; b.Loop(); i++ {
			op(i)
			if i%500 == 499 {
				b.StopTimer()
				drain()
				b.StartTimer()
			}
		}
	}
	b.Run("message", func(b *testing.B) { run(b, func(i int) { send(i) }) })
	b.Run("edit", func(b *testing.B) {
		id := send(0)
		run(b, func(i int) {
			content := fmt.Sprintf("edited **%d**", i)
			if err := svc.EditMessage(ctx, chat.AsUser(org.UserID), id, &content); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("typing", func(b *testing.B) {
		channel := chat.TypingRequest{Type: "channel", Op: "start", StreamID: new(int64), Topic: &topic}
		subs, err := svc.Subscriptions(ctx, chat.AsUser(org.UserID), false)
		if err != nil || len(subs) != 1 {
			b.Fatalf("subscriptions: %v, %v", subs, err)
		}
		*channel.StreamID = subs[0].StreamID
		run(b, func(int) {
			if err := svc.SetTyping(ctx, chat.AsUser(org.UserID), channel); err != nil {
				b.Fatal(err)
			}
		})
	})
}
