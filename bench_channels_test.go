package chat_test

import (
	"fmt"
	"testing"

	"github.com/teamchat/chat"
)

// BenchmarkChannelList lists the channels of an organization of 500 users
// and 200 channels of 52 subscribers each (GET /streams, and three blocks
// of POST /register, which call it), on SQLite. The subscriber counts of
// the channel objects are what it mostly costs. One op is one listing.
func BenchmarkChannelList(b *testing.B) {
	f := newBenchOrg(b, 500)
	for i := range 200 {
		ids := f.ids[(i*7)%400 : (i*7)%400+51]
		if _, err := f.svc.Subscribe(f.ctx, chat.AsUser(f.org.UserID), chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: fmt.Sprintf("c%d", i)}},
			Principals:    &chat.Principals{IDs: append([]int64{f.org.UserID}, ids...)}}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := f.svc.Channels(f.ctx, chat.AsUser(f.org.UserID), chat.ChannelQuery{IncludePublic: true, IncludeSubscribed: true}); err != nil {
			b.Fatal(err)
		}
	}
}
