package slackimport_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage"
)

// legacyExport has the shapes of real exports from 2016 on: no owner
// (an administrator becomes one), "created" as a string and timestamps as
// numbers, a private channel whose members are null, integration posts
// (with and without a bot ID, one from a bot users.json lists, one of
// legacy attachments only), an old-style file share and a file comment,
// a /me message, senders and group members missing from users.json, a
// join with a reaction, a message without a sender, two threads with the
// same first text, mentions of a channel and a user the export lacks, a
// message whose only file was deleted, an element that is not a message,
// reactions of unknown users and emoji, a missing file, a thread in a
// direct conversation, a folder no list names, an invalid custom emoji
// name, and the files in slackdump's attachments folder.
func legacyExport() map[string]any {
	return map[string]any{
		"users.json": `[
			{"id": "U1", "name": "ann", "is_admin": true, "profile": {"real_name": "Ann Admin", "email": "ann@example.com"}},
			{"id": "U2", "name": "ben", "profile": {"real_name": "Ben Member", "email": "ben@example.com"}},
			{"id": "UB1", "name": "deploybot", "is_bot": true, "profile": {"real_name": "Deploy Bot", "bot_id": "B1"}}]`,
		"channels.json": `[{"id": "C1", "name": "general", "created": "1451606400", "creator": "U1", "is_general": true,
			"members": ["U1", "U2", "U7"], "topic": {"value": "", "creator": "", "last_set": 0}}]`,
		"groups.json": `[{"id": "G9", "name": "ops", "created": 1451606400, "creator": "U1", "members": null}]`,
		"mpims.json":  `[{"id": "G1", "name": "mpdm-ann--ben--zed-1", "created": "1451606400", "members": ["U1", "U2", "U8"]}]`,
		"dms.json":    `[{"id": "D1", "created": 1451606400, "members": ["U1", "U2"]}]`,
		"emoji.json":  `{"bad name!": "https://emoji.example/bad.png"}`,
		"general/2016-01-01.json": `[
			{"type": "message", "user": "U1", "ts": 1451635200.000001, "text": "` + "```Traceback (most recent call last):\\nValueError```" + `"},
			{"type": "message", "subtype": "bot_message", "bot_id": "B2", "username": "jenkins", "ts": "1451635260.000000", "text": "",
				"attachments": [{"fallback": "Build 1 passed", "title": "Build 1", "title_link": "https://ci.example/1", "text": "passed"}]},
			{"type": "message", "subtype": "bot_message", "bot_id": "B2", "username": "jenkins", "ts": "1451635320.000000", "text": "Build 2 failed"},
			{"type": "message", "subtype": "bot_message", "bot_id": "B1", "ts": "1451635380.000000", "text": "deployed"},
			{"type": "message", "subtype": "bot_message", "username": "rss", "ts": "1451635440.000000", "text": "feed item"},
			{"type": "message", "subtype": "file_share", "user": "U2", "ts": "1451635500.000000", "upload": true,
				"text": "<@U2|ben> uploaded a file: <https://acme.slack.com/files/ben/F1/notes.txt|notes.txt>",
				"file": {"id": "F1", "name": "notes.txt", "title": "notes.txt", "mimetype": "text/plain", "user": "U2",
					"url_private": "https://files.slack.com/files-pri/T1-F1/notes.txt"}},
			{"type": "message", "subtype": "file_comment", "ts": "1451635560.000000",
				"text": "<@U1|ann> commented on <@U2|ben>'s file <https://acme.slack.com/files/ben/F1/notes.txt|notes.txt>: looks good",
				"file": {"id": "F1", "name": "notes.txt", "user": "U2"}, "comment": {"id": "Fc1", "user": "U1", "comment": "looks good"}},
			{"type": "message", "subtype": "me_message", "user": "U2", "ts": "1451635620.000000", "text": "waves"},
			{"type": "message", "user": "U5", "ts": "1451635680.000000", "text": "hello from elsewhere",
				"user_profile": {"real_name": "Eve Outside", "display_name": "eve", "name": "eve"}},
			{"type": "message", "subtype": "channel_join", "user": "U2", "ts": "1451635740.000000", "text": "<@U2|ben> has joined the channel",
				"reactions": [{"name": "wave", "users": ["U1"], "count": 1}]},
			{"type": "message", "ts": "1451635800.000000", "text": "orphan"},
			{"type": "message", "user": "U1", "ts": "1451635860.000000", "thread_ts": "1451635860.000000", "text": "Deploy"},
			{"type": "message", "user": "U2", "ts": "1451635920.000000", "thread_ts": 1451635860.0, "text": "first reply"},
			{"type": "message", "user": "U2", "ts": "1451635980.000000", "thread_ts": "1451635980.000000", "text": "deploy"},
			{"type": "message", "user": "U1", "ts": "1451636040.000000", "thread_ts": "1451635980.000000", "text": "second reply"},
			{"type": "message", "user": "U1", "ts": "1451636100.000000", "text": "see <#C99|old-channel> and <@U77>"},
			{"type": "message", "user": "U1", "ts": "1451636160.000000", "text": "", "files": [{"id": "F9", "mode": "tombstone"}]},
			{"type": "reminder", "ts": "1451636220.000000", "text": "remind"},
			{"type": "message", "user": "U2", "ts": "1451636280.000000", "text": "react to me",
				"reactions": [{"name": "+1", "users": ["U1", "U404"], "count": 2}, {"name": "nosuchemoji", "users": ["U2"], "count": 1}]},
			{"type": "message", "user": "U2", "ts": "1451636340.000000", "text": "big picture",
				"files": [{"id": "F3", "name": "big.png", "url_private": "https://files.slack.com/files-pri/T1-F3/big.png"}]}]`,
		"general/attachments/F1-notes.txt": "the notes\n",
		"ops/2016-01-01.json":              `[{"type": "message", "user": "U1", "ts": "1451635230.000000", "text": "private ops"}]`,
		"mpdm-ann--ben--zed-1/2016-01-01.json": `[{"type": "message", "user": "U8", "ts": "1451635290.000000", "text": "group hello",
			"user_profile": {"real_name": "Zed Outside"}}]`,
		"D1/2016-01-01.json": `[{"type": "message", "user": "U1", "ts": "1451635350.000000", "thread_ts": "1451635200.000001", "text": "dm reply"}]`,
		"lost/2016-01-02.json": `[{"type": "message", "user": "U2", "ts": "1451721600.000000", "text": "in a lost folder"},
			{"type": "message", "user": "U1", "ts": "1451721660.000000", "text": "still lost"}]`,
	}
}

// Every count of the summary, and every item of the report, for an export
// in the shapes of real ones.
func TestImportSlackLegacyExport(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{JWTSecret: testSecret})
		res, err := importSample(t, svc, realWorldShape(t, legacyExport()), slackimport.Options{Host: "legacy.example.com"})
		wantNoErr(t, "import", err)
		skipped := func(n int, kind string) slackimport.KindCount {
			return slackimport.KindCount{Count: n, Reason: reasonOf(res, kind)}
		}
		diff(t, "result", res.Skipped, map[string]slackimport.KindCount{
			"channel_event": skipped(1, "channel_event"), "not_a_message": skipped(1, "not_a_message"),
			"no_sender": skipped(1, "no_sender"), "empty_message": skipped(1, "empty_message"),
			"reaction_unknown_emoji": skipped(1, "reaction_unknown_emoji"), "reaction_unknown_user": skipped(1, "reaction_unknown_user"),
			"reaction_of_skipped_message": skipped(1, "reaction_of_skipped_message"), "deleted_file": skipped(1, "deleted_file"),
			"unread_file": skipped(1, "unread_file"), "invalid_custom_emoji": skipped(1, "invalid_custom_emoji"),
		})
		diff(t, "altered", res.Altered, map[string]slackimport.KindCount{
			"missing_file": skipped(1, "missing_file"), "placeholder_user": skipped(3, "placeholder_user"),
			"unlisted_folder": skipped(1, "unlisted_folder"), "topic_renamed": skipped(1, "topic_renamed"),
			"direct_thread_flattened": skipped(1, "direct_thread_flattened"), "unknown_mention": skipped(2, "unknown_mention"),
		})
		var report []string
		for _, r := range res.Report {
			report = append(report, fmt.Sprintf("%s %s %s %s %s %s", r.Action, r.Kind, r.Channel, r.TS, r.User, r.Detail))
		}
		diff(t, "report", report, []string{
			"skipped unread_file general   canvas_in_the_conversation.json",
			"skipped invalid_custom_emoji    bad name!",
			"altered placeholder_user general  U7 Slack user U7",
			"altered placeholder_user mpdm-ann--ben--zed-1  U8 Slack user U8",
			"altered unlisted_folder lost   lost",
			"altered direct_thread_flattened D1 1451635350.000000  ",
			"altered placeholder_user general 1451635680.000000 U5 Eve Outside",
			"skipped channel_event general 1451635740.000000  channel_join",
			"skipped reaction_of_skipped_message general 1451635740.000000 U1 wave",
			"skipped no_sender general 1451635800.000000  ",
			"altered topic_renamed general 1451635980.000000  deploy (2)",
			"altered unknown_mention general 1451636100.000000  #C99",
			"altered unknown_mention general 1451636100.000000  @U77",
			"skipped deleted_file general 1451636160.000000  F9 F9",
			"skipped not_a_message general 1451636220.000000  reminder",
			"altered missing_file general 1451636340.000000  F3 big.png",
			"skipped empty_message general 1451636160.000000  ",
			"skipped reaction_unknown_user general 1451636280.000000 U404 +1",
			"skipped reaction_unknown_emoji general 1451636280.000000 U2 nosuchemoji",
		})
		checkLegacyMessages(t, svc)
		res.Skipped, res.Altered, res.Report = nil, nil, nil
		diff(t, "counts", res, slackimport.Result{RealmID: res.RealmID, RealmURL: "http://legacy.example.com",
			Users: 8, Bots: 3, Channels: 3, DirectConversations: 2, Messages: 21, Reactions: 1, Files: 1})
	})
}

// reasonOf is the reason the result gives for a kind.
func reasonOf(res slackimport.Result, kind string) string {
	if c, ok := res.Skipped[kind]; ok {
		return c.Reason
	}
	return res.Altered[kind].Reason
}

// checkLegacyMessages checks what the legacy export's messages became, as
// its owner reads them.
func checkLegacyMessages(t *testing.T, svc *chat.Service) {
	t.Helper()
	ann := loginID(t, svc, "legacy.example.com", "ann@example.com")
	got, err := svc.GetMessages(context.Background(), chat.AsUser(ann), chat.GetMessagesRequest{Anchor: ptr("oldest"),
		IncludeAnchor: ptr(true), NumAfter: ptr[int64](100), Format: chat.MessageFormat{AllowEmptyTopicName: true}})
	wantNoErr(t, "GetMessages", err)
	var lines []string
	for _, m := range got.Messages {
		to, ok := m.DisplayRecipient.(string)
		if !ok {
			var names []string
			for _, r := range m.DisplayRecipient.([]chat.DirectRecipient) {
				names = append(names, r.FullName)
			}
			to = strings.Join(names, ",")
		}
		content := m.Content
		if i := strings.Index(content, "(/user_uploads/"); i >= 0 {
			content = content[:i] + "(/user_uploads/...)"
		}
		content = mentionID.ReplaceAllString(content, "|ID**")
		lines = append(lines, fmt.Sprintf("%s > %s > %s: %q", m.SenderFullName, to, m.Subject, content))
	}
	diff(t, "messages", lines, []string{
		`Ann Admin > general > : "` + "```\\nTraceback (most recent call last):\\nValueError\\n```" + `"`,
		`Ann Admin > ops > : "private ops"`,
		`jenkins > general > : "**[Build 1](https://ci.example/1)**\npassed"`,
		`Slack user U8 > Ann Admin,Ben Member,Slack user U8 > : "group hello"`,
		`jenkins > general > : "Build 2 failed"`,
		`Ann Admin > Ann Admin,Ben Member > : "dm reply"`,
		`Deploy Bot > general > : "deployed"`,
		`rss > general > : "feed item"`,
		`Ben Member > general > : "@**Ben Member|ID** uploaded a file: [notes.txt](https://acme.slack.com/files/ben/F1/notes.txt)\n[notes.txt](/user_uploads/...)"`,
		`Ann Admin > general > : "@**Ann Admin|ID** commented on @**Ben Member|ID**'s file [notes.txt](https://acme.slack.com/files/ben/F1/notes.txt): looks good"`,
		`Ben Member > general > : "/me waves"`,
		`Eve Outside > general > : "hello from elsewhere"`,
		`Ann Admin > general > Deploy: "Deploy"`,
		`Ben Member > general > Deploy: "first reply"`,
		`Ben Member > general > deploy (2): "deploy"`,
		`Ann Admin > general > deploy (2): "second reply"`,
		`Ann Admin > general > : "see #old-channel and @U77"`,
		`Ben Member > general > : "react to me"`,
		`Ben Member > general > : "big picture\n[big.png](https://files.slack.com/files-pri/T1-F3/big.png)"`,
		`Ben Member > lost > : "in a lost folder"`,
		`Ann Admin > lost > : "still lost"`,
	})
}

// mentionID matches the user ID of a mention in raw content.
var mentionID = regexp.MustCompile(`\|\d+\*\*`)
