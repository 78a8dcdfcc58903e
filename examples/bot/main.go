// Command bot shows a bot built on the Go API's event queue (Service.Listen):
// a greeter that listens as a bot user and reacts to three kinds of events.
//
//   - A direct message to the bot (a "message" event): the bot reacts to it
//     with :wave: and answers in the same conversation.
//   - Someone joins a channel the bot is in (a subscription "peer_add"
//     event): the bot sends each newcomer a direct welcome message.
//   - Someone starts typing a direct message to the bot (a "typing"
//     event): the bot types back.
//
// Run it with no arguments for the demo: it makes an organization in
// memory, starts the bot, plays two users who trigger every reaction,
// checks that each user saw the bot react, and exits (status 0, or 1 after
// ten seconds without the reactions).
//
//	go run ./examples/bot
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// bot reacts to the events of one bot user.
type bot struct {
	svc *chat.Service
	me  chat.Actor
	log func(format string, args ...any)
}

// listen registers the bot's event queue; the returned sequence yields its
// events until ctx ends. Events sent after listen returns are not missed.
func (b *bot) listen(ctx context.Context) (iter.Seq2[chat.QueuedEvent, error], error) {
	_, events, err := b.svc.Listen(ctx, b.me, chat.RegisterRequest{
		EventTypes: []string{"message", "subscription", "typing"},
		// The bot needs no initial state: ask for one small block.
		FetchEventTypes: []string{"realm"},
	})
	return events, err
}

// run handles events until the sequence ends.
func (b *bot) run(ctx context.Context, events iter.Seq2[chat.QueuedEvent, error]) {
	for ev, err := range events {
		if err != nil {
			b.log("bot: event queue lost: %v", err)
			return
		}
		if err := b.handle(ctx, ev); err != nil {
			b.log("bot: handling a %s event: %v", ev.Type, err)
		}
	}
}

// event holds the few fields of an event's JSON object the bot reads.
type event struct {
	Op      string  `json:"op"`
	UserIDs []int64 `json:"user_ids"`
	Sender  struct {
		UserID int64 `json:"user_id"`
	} `json:"sender"`
	// Message is set in message events; queues get Markdown unless they
	// ask for HTML.
	Message *struct {
		ID             int64  `json:"id"`
		SenderID       int64  `json:"sender_id"`
		SenderFullName string `json:"sender_full_name"`
		Type           string `json:"type"`
		Content        string `json:"content"`
		// DisplayRecipient lists a direct message's participants.
		DisplayRecipient json.RawMessage `json:"display_recipient"`
	} `json:"message"`
	// Reaction events.
	UserID    int64  `json:"user_id"`
	EmojiName string `json:"emoji_name"`
}

// participants returns the user IDs of a direct message's conversation.
func participants(raw json.RawMessage) ([]int64, error) {
	var users []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(raw, &users); err != nil {
		return nil, err
	}
	ids := make([]int64, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	return ids, nil
}

// sendDirect sends a direct message from the bot.
func (b *bot) sendDirect(ctx context.Context, to []int64, content string) error {
	_, err := b.svc.SendMessage(ctx, b.me, chat.SendMessageRequest{
		Type: "direct", To: &chat.MessageTo{IDs: to}, Content: content, Client: "GreeterBot",
	})
	return err
}

// handle reacts to one event.
func (b *bot) handle(ctx context.Context, ev chat.QueuedEvent) error {
	var e event
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		return err
	}
	switch {
	case ev.Type == "message" && e.Message != nil && e.Message.SenderID != b.me.UserID() && e.Message.Type == "private":
		m := e.Message
		b.log("bot: %s wrote to me: %q; waving and answering", m.SenderFullName, m.Content)
		if err := b.svc.AddReaction(ctx, b.me, m.ID, chat.ReactionRequest{Name: "wave"}); err != nil {
			return err
		}
		to, err := participants(m.DisplayRecipient)
		if err != nil {
			return err
		}
		return b.sendDirect(ctx, to, "Hello @**"+m.SenderFullName+"**! I greet everyone who joins my channels.")
	case ev.Type == "subscription" && e.Op == "peer_add":
		for _, id := range e.UserIDs {
			if id == b.me.UserID() {
				continue
			}
			b.log("bot: user %d joined a channel of mine; greeting them", id)
			if err := b.sendDirect(ctx, []int64{id}, "Welcome aboard!"); err != nil {
				return err
			}
		}
	case ev.Type == "typing" && e.Op == "start" && e.Sender.UserID != b.me.UserID():
		b.log("bot: user %d is typing to me; typing back", e.Sender.UserID)
		return b.svc.SetTyping(ctx, b.me, chat.TypingRequest{Op: "start", To: []int64{e.Sender.UserID}})
	}
	return nil
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := demo(ctx); err != nil {
		log.Fatal(err)
	}
}

// demo runs the bot against an in-memory organization and plays its users.
func demo(ctx context.Context) error {
	svc := chat.New(memory.New(), chat.Config{})
	defer svc.Close()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Bot demo", Host: "chat.example", OwnerEmail: "ann@chat.example", OwnerName: "Ann Owner",
	})
	if err != nil {
		return err
	}
	ann := org.UserID
	asAnn := chat.AsUser(ann)
	bob, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "bob@chat.example", FullName: "Bob Newcomer"})
	if err != nil {
		return err
	}
	greeter, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "greeter-bot@chat.example", FullName: "Greeter Bot",
		BotType: chat.BotGeneric, BotOwnerID: ann,
	})
	if err != nil {
		return err
	}

	b := &bot{svc: svc, me: chat.AsUser(greeter.UserID), log: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }}
	botEvents, err := b.listen(ctx)
	if err != nil {
		return err
	}
	go b.run(ctx, botEvents)

	// Ann makes a channel with the bot in it.
	if _, err := svc.Subscribe(ctx, asAnn, chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: "welcome"}},
		Principals:    &chat.Principals{IDs: []int64{ann, greeter.UserID}},
	}); err != nil {
		return err
	}
	// Bob and Ann watch their queues for what the bot does.
	seen := make(chan string, 8)
	watch := func(id int64, name string, want int) error {
		_, events, err := svc.Listen(ctx, chat.AsUser(id), chat.RegisterRequest{
			EventTypes: []string{"message", "reaction", "typing"}, FetchEventTypes: []string{"realm"}})
		if err != nil {
			return err
		}
		go func() {
			got := 0
			for ev, err := range events {
				var e event
				if err != nil || json.Unmarshal(ev.Data, &e) != nil {
					return
				}
				var line string
				switch {
				case ev.Type == "message" && e.Message != nil && e.Message.SenderID == greeter.UserID:
					line = fmt.Sprintf("%s: Greeter Bot wrote %q", name, e.Message.Content)
				case ev.Type == "reaction" && e.UserID == greeter.UserID:
					line = fmt.Sprintf("%s: Greeter Bot reacted :%s:", name, e.EmojiName)
				case ev.Type == "typing" && e.Sender.UserID == greeter.UserID:
					line = name + ": Greeter Bot is typing…"
				default:
					continue
				}
				seen <- line
				if got++; got == want {
					return
				}
			}
		}()
		return nil
	}
	// Bob expects a welcome; Ann a wave, an answer and typing.
	if err := watch(bob.UserID, "bob", 1); err != nil {
		return err
	}
	if err := watch(ann, "ann", 3); err != nil {
		return err
	}

	// Ann adds Bob to the channel, starts typing to the bot, and writes to it.
	if _, err := svc.Subscribe(ctx, asAnn, chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: "welcome"}},
		Principals:    &chat.Principals{IDs: []int64{bob.UserID}},
	}); err != nil {
		return err
	}
	if err := svc.SetTyping(ctx, asAnn, chat.TypingRequest{Op: "start", To: []int64{greeter.UserID}}); err != nil {
		return err
	}
	if _, err := svc.SendMessage(ctx, asAnn, chat.SendMessageRequest{
		Type: "direct", To: &chat.MessageTo{IDs: []int64{greeter.UserID}}, Content: "Hi bot, what do you do?",
	}); err != nil {
		return err
	}

	for range 4 {
		select {
		case line := <-seen:
			fmt.Println(line)
		case <-ctx.Done():
			return fmt.Errorf("the bot did not react in time: %w", ctx.Err())
		}
	}
	return nil
}
