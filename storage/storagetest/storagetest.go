// Package storagetest is the conformance suite of the chat storage SPI: every
// storage.Store implementation runs it from a one-line test, which proves the
// backends interchangeable for the domain.
//
// The suite checks the documented contract of storage.Store and storage.Tx: ID
// assignment, the round trip of every field, the ErrNotFound, ErrExists and
// ErrReadOnly errors, the ordering and filtering of the list methods,
// rollback on error and on panic, snapshot reads, context cancellation and
// concurrent use. Run it with -race.
package storagetest

import (
	"testing"

	"github.com/teamchat/chat/storage"
)

// Run runs the conformance suite as subtests of t. open is called once per
// subtest and must return a new, empty store; Run closes that store when the
// subtest ends (and one subtest closes it itself, to check what happens
// after Close), so open must not close it.
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Helper()
	RunWith(t, open, Options{})
}

// Options describe where a backend differs in ways the SPI allows.
type Options struct {
	// ConcurrentUpdates says that Updates do not wait for one another: they
	// run side by side, and the backend keeps them serialisable by aborting
	// and running fn again when they collide (PostgreSQL's SERIALIZABLE).
	// The suite then checks that an Update whose context ends while fn runs
	// commits nothing, instead of checking that an Update waiting for
	// another gives up when its context ends.
	ConcurrentUpdates bool
}

// RunWith is Run for a backend with the given differences.
func RunWith(t *testing.T, open func(t *testing.T) storage.Store, opts Options) {
	t.Helper()
	s := &suite{open: open}
	canceledWhileWaiting := s.testCanceledWhileWaiting
	if opts.ConcurrentUpdates {
		canceledWhileWaiting = s.testCanceledWhileRunning
	}
	cases := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"CreateRealm/IDs", s.testRealmIDs},
		{"CreateUser/IDs", s.testUserIDs},
		{"Realm/RoundTrip", s.testRealmRoundTrip},
		{"UpdateRealm", s.testUpdateRealm},
		{"User/RoundTrip", s.testUserRoundTrip},
		{"UpdateUser", s.testUpdateUser},
		{"Times", s.testTimes},
		{"NotFound", s.testNotFound},
		{"Exists/RealmHost", s.testExistsRealmHost},
		{"Exists/Email", s.testExistsEmail},
		{"Exists/APIKey", s.testExistsAPIKey},
		{"Realms", s.testRealms},
		{"Users/All", s.testUsersAll},
		{"Users/IDs", s.testUsersIDs},
		{"ActiveUserIDs", s.testActiveUserIDs},
		{"UsersByRole", s.testUsersByRole},
		{"BotsOwnedBy", s.testBotsOwnedBy},
		{"UserAndRealm", s.testUserAndRealm},
		{"View/ReadOnly", s.testViewReadOnly},
		{"View/Error", s.testViewError},
		{"View/Snapshot", s.testViewSnapshot},
		{"Update/ReadYourWrites", s.testReadYourWrites},
		{"Update/Commit", s.testCommit},
		{"Update/RollbackOnError", s.testRollbackOnError},
		{"Update/RollbackOnPanic", s.testRollbackOnPanic},
		{"NoAliasing", s.testNoAliasing},
		{"Context/Canceled", s.testCanceled},
		{"Context/CanceledWhileWaiting", canceledWhileWaiting},
		{"Concurrent/Creates", s.testConcurrentCreates},
		{"Concurrent/ReadModifyWrite", s.testConcurrentReadModifyWrite},
		{"Close", s.testClose},
		{"ProfileFields", s.testProfileFields},
		{"ProfileValues", s.testProfileValues},
		{"ProfileValues/Rollback", s.testProfileValuesRollback},
		{"RealmEmoji", s.testRealmEmoji},
		{"Realm/Settings", s.testRealmSettings},
		{"Linkifiers", s.testLinkifiers},
		{"RealmDomains", s.testRealmDomains},
		{"UserGroups", s.testUserGroups},
		{"Channels", s.testChannels},
		{"Subscriptions", s.testSubscriptions},
		{"Subscriptions/Bulk", s.testSubscriptionsBulk},
		{"ChannelFolders", s.testChannelFolders},
		{"UserTopics", s.testUserTopics},
		{"Messages/Channels", s.testChannelMessages},
		{"Channels/Rollback", s.testChannelsRollback},
		{"Channels/ReadOnly", s.testChannelsReadOnly},
		{"Attachments", s.testAttachments},
		{"Attachments/Owner", s.testAttachmentsOfOwner},
		{"PushTokens", s.testPushTokens},
		{"Devices", s.testDevices},
		{"Messages", s.testMessages},
		{"MoveMessages", s.testMoveMessages},
		{"MarkRead", s.testMarkRead},
		{"UnreadMessages", s.testUnreadMessages},
		{"SubscriberCounts", s.testSubscriberCounts},
		{"ActiveSubscribers", s.testActiveSubscribers},
		{"ActiveSubscribersAfterWrites", s.testActiveSubscribersAfterWrites},
		{"Reactions", s.testReactions},
		{"Messages/RoundTrip", s.testMessageRoundTrip},
		{"Messages/Topics", s.testMessageTopics},
		{"Messages/ChangesChannel", s.testMessageChangesChannel},
		{"Messages/UserMessages", s.testUserMessages},
		{"Messages/DeleteUserMessages", s.testDeleteUserMessages},
		{"Messages/Edits", s.testMessageEdits},
		{"Messages/Flags", s.testMessageFlags},
		{"Messages/Find", s.testFindMessages},
		{"Messages/Search", s.testSearchMessages},
		{"Messages/FindPeople", s.testFindPeople},
		{"Messages/Reactions", s.testReactionsConformance},
		{"Messages/ReadOnly", s.testMessagesReadOnly},
		{"Messages/Rollback", s.testMessagesRollback},
		{"Messages/NoAliasing", s.testMessagesNoAliasing},
		{"BotStorage", s.testBotStorage},
		{"UserLists", s.testUserLists},
		{"BotServices", s.testBotServices},
		{"Presence", s.testPresence},
	}
	for _, c := range cases {
		t.Run(c.name, c.fn)
	}
}

type suite struct {
	open func(t *testing.T) storage.Store
}

// store opens a fresh store that is closed when t ends.
func (s *suite) store(t *testing.T) storage.Store {
	t.Helper()
	st := s.open(t)
	if st == nil {
		t.Fatal("open returned a nil store")
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

// Fixtures. Times carry nanoseconds that are not a multiple of a
// microsecond, so backends that truncate are caught.

// Transaction helpers. They fail the test on any error, which is fine inside
// fn because fn runs on the test's goroutine.

// Comparisons.

// The cases.
