package chat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestRenderUnicodeEmoji: emoji typed as characters render as the spans of
// their canonical names, as the reference renders them; sequences it has
// no name for, skin tones among them, stay text whole.
func TestRenderUnicodeEmoji(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		span := func(label, code, name string) string {
			return `<span aria-label="` + label + `" class="emoji emoji-` + code + `" role="img" title="` + label + `">:` + name + `:</span>`
		}
		poop := span("poop", "1f4a9", "poop")
		wantRenders(t, f, []renderCase{
			{"💩💩 word 💩", "<p>" + poop + poop + " word " + poop + "</p>"},
			{"💩\n**💩**", "<p>" + poop + "<br>\n<strong>" + poop + "</strong></p>"},
			{"Merry Christmas!!🎄", "<p>Merry Christmas!!" + span("holiday tree", "1f384", "holiday_tree") + "</p>"},
			{"Black upward arrow ⬆\uFE0F", "<p>Black upward arrow " + span("up", "2b06", "up") + "</p>"},
			{"🤷\u200D♀\uFE0F", "<p>" + span("woman shrugging", "1f937-200d-2640", "woman_shrugging") + "</p>"},
			{"👁\u200D🗨 #\uFE0F\u20E3 1\u20E3", "<p>" + span("eye in speech bubble", "1f441-200d-1f5e8", "eye_in_speech_bubble") + " " +
				span("hash", "0023-20e3", "hash") + " " + span("one", "0031-20e3", "one") + "</p>"},
			{"🇺🇸", "<p>" + span("flag united states", "1f1fa-1f1f8", "flag_united_states") + "</p>"},
			{"no such sequence: 🐦\u200D🐦, 👍🏽", "<p>no such sequence: 🐦\u200D🐦, 👍🏽</p>"},
			{"`💩` 3 * 4 #1", "<p><code>💩</code> 3 * 4 #1</p>"},
			// Only the reference's names and codes render; the dataset's
			// others (accepted for reactions) stay text, as there.
			{":cooking: :fried_egg: :skin-tone-2: :man-girl-girl: 🐦\u200D🔥 🍋", "<p>" + span("cooking", "1f373", "cooking") +
				" :fried_egg: :skin-tone-2: :man-girl-girl: 🐦\u200D🔥 " + span("lemon", "1f34b", "lemon") + "</p>"},
		})
	})
}

// renderCase is content and the HTML it renders to.
type renderCase struct{ in, want string }

// wantRenders renders each case's content as the fixture's member.
func wantRenders(t *testing.T, f *fixture, cases []renderCase) {
	t.Helper()
	for _, c := range cases {
		got, err := f.svc.RenderMessage(t.Context(), chat.AsUser(f.member.ID), c.in)
		wantNoErr(t, c.in, err)
		diff(t, c.in, got, c.want)
	}
}

// TestMentionOfDeactivatedUser: a deactivated user is mentioned silently,
// as the reference mentions them.
func TestMentionOfDeactivatedUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.guest.ID))
		got, err := f.svc.RenderMessage(ctx, chat.AsUser(f.member.ID), "@**"+f.guest.Name+"** and @**"+f.moderator.Name+"**")
		wantNoErr(t, "RenderMessage", err)
		diff(t, "mentions", got, `<p><span class="user-mention silent" data-user-id="`+itoa(f.guest.ID)+`">`+f.guest.Name+
			`</span> and <span class="user-mention" data-user-id="`+itoa(f.moderator.ID)+`">@`+f.moderator.Name+`</span></p>`)
	})
}

// TestRenderLocalLinks: links to the organization's own narrows and
// uploads are made relative, as the reference makes them, so that clients
// open them in place; its other pages and other sites keep their URLs.
func TestRenderLocalLinks(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		settings, err := f.svc.ServerSettings(t.Context(), host1)
		wantNoErr(t, "ServerSettings", err)
		realm := settings.RealmURL
		wantRenders(t, f, []renderCase{
			{"[general](" + realm + "/#narrow/channel/1-general)", `<p><a href="#narrow/channel/1-general">general</a></p>`},
			{realm + "/user_uploads/1/ab/f.png", `<p><a href="user_uploads/1/ab/f.png">` + realm + `/user_uploads/1/ab/f.png</a></p>`},
			{realm + "/help/ " + realm + "x/#narrow", `<p><a href="` + realm + `/help/">` + realm + `/help/</a> <a href="` + realm + `x/#narrow">` +
				realm + `x/#narrow</a></p>`},
			{"[x](https://other.example.org/#narrow/channel/1-general)", `<p><a href="https://other.example.org/#narrow/channel/1-general">x</a></p>`},
		})
	})
}

// TestQuotedMentionsNotifyNobody: quoting a message that mentions someone
// (as "quote and reply" does) mentions them silently, as the reference
// does; only the mention outside the quote flags the message.
func TestQuotedMentionsNotifyNobody(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		alpha := subscribeTo(t, f, "alpha", f.admin.ID, f.member.ID)
		name := fullName(t, f, f.member.ID)
		_, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.admin.ID), alpha, "t", "> @**"+name+"** asked\n\n```quote\n@**"+name+"**\n```")
		wantNoErr(t, "quote", err)
		mentioned, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.admin.ID), alpha, "t", "@**"+name+"** answered")
		wantNoErr(t, "mention", err)
		diff(t, "is:mentioned", narrowIDs(t, f, f.member.ID, `[["is","mentioned"]]`), []int64{mentioned})
	})
}

// TestDefaultCodeBlockLanguage: once the organization has a default
// language, a fence that names none is highlighted in it and named by it,
// as in the reference, when previewed, sent and edited; a fence naming
// one, a spoiler's fences and indented code keep their own.
func TestDefaultCodeBlockLanguage(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		code := func(lang, body string) string {
			if lang != "" {
				lang = ` data-code-language="` + lang + `"`
			}
			return `<div class="codehilite"` + lang + `><pre><span></span><code>` + body + `</code></pre></div>`
		}
		python := `<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>` + "\n"
		bare := "```\nx = 1\n```"
		wantRenders(t, f, []renderCase{{bare, code("", "x = 1\n")}})
		alpha := subscribeTo(t, f, "alpha", f.member.ID)
		before, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), alpha, "t", bare)
		wantNoErr(t, "send before", err)

		lang := "python"
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{DefaultCodeBlockLanguage: &lang})
		wantNoErr(t, "UpdateRealm", err)
		wantRenders(t, f, []renderCase{
			{bare, code("Python", python)},
			{"```text\nx = 1\n```", code("Text only", "x = 1\n")},
			{"````spoiler s\n```\nx = 1\n```\n````", `<div class="spoiler-block"><div class="spoiler-header">` + "\n<p>s</p>\n" +
				`</div><div class="spoiler-content" aria-hidden="true">` + "\n" + code("", "x = 1\n") + "\n</div></div>"},
			{"text\n\n    x = 1", "<p>text</p>\n" + code("", "x = 1\n")},
		})
		after, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), alpha, "t", bare)
		wantNoErr(t, "send after", err)
		_, err = f.svc.UpdateMessage(ctx, chat.AsUser(f.member.ID), before, chat.MessageEdit{Content: &bare})
		wantNoErr(t, "edit", err)
		for _, id := range []int64{before, after} {
			m, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageFormat{ApplyMarkdown: true})
			wantNoErr(t, "GetMessage", err)
			diff(t, "stored rendering", m.Content, code("Python", python))
		}
	})
}

// TestMathRendered: math in a message is rendered by KaTeX when previewed,
// sent and edited (on the path that renders before the write), and what
// KaTeX cannot parse is its source in a tex-error span, as the reference
// writes them.
func TestMathRendered(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		// KaTeX under the race detector takes many times its 1–3 ms.
		f := newFixtureWith(t, newStore, chat.Config{HighlightBudget: time.Minute})
		ctx := t.Context()
		inline := `<span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>x</mi></mrow>` +
			`<annotation encoding="application/x-tex">x</annotation></semantics></math></span><span class="katex-html" aria-hidden="true">` +
			`<span class="base"><span class="strut" style="height:0.4306em;"></span><span class="mord mathnormal">x</span></span></span></span>`
		wantRenders(t, f, []renderCase{
			{"where $$x$$ is", "<p>where " + inline + " is</p>"},
			{`$$\error{x}$$`, `<p><span class="tex-error">$$\error{x}$$</span></p>`},
			{"```math\n\\error{<x>}\n```", `<p><span class="tex-error">\error{&lt;x&gt;}</span></p>`},
		})
		alpha := subscribeTo(t, f, "alpha", f.member.ID)
		id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), alpha, "t", "$$y$$")
		wantNoErr(t, "send", err)
		edit := "where $$x$$ is"
		_, err = f.svc.UpdateMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageEdit{Content: &edit})
		wantNoErr(t, "edit", err)
		m, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageFormat{ApplyMarkdown: true})
		wantNoErr(t, "GetMessage", err)
		diff(t, "stored rendering", m.Content, "<p>where "+inline+" is</p>")
	})
}

// TestTopicLinksNameTheirFirstMessage: a topic link names the topic's
// first message after "/with/", as the reference's links do, so that it
// follows the topic when it moves: the topic's first when the channel's
// history is open to its subscribers, else the first the sender received;
// a topic without one is linked without it, and the empty topic reads as
// its display name in emphasis. As in the reference, a channel is linked
// only by those who may read it.
func TestTopicLinksNameTheirFirstMessage(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		pub := subscribeTo(t, f, "pub", f.admin.ID, f.member.ID)
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "priv"}},
			InviteOnly: true, HistoryPublicToSubscribers: ptr(false), Principals: &chat.Principals{IDs: []int64{f.admin.ID}}})
		wantNoErr(t, "Subscribe priv", err)
		priv := channelIDOf(t, f, "priv")
		send := func(channel int64, topic string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.admin.ID), channel, topic, "text")
			wantNoErr(t, "send", err)
			return id
		}
		first := send(pub, "Plans")
		send(pub, "plans")
		hidden := send(priv, "secret")
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "priv"}},
			Principals: &chat.Principals{IDs: []int64{f.member.ID}}})
		wantNoErr(t, "Subscribe member to priv", err)
		received := send(priv, "secret")
		send(pub, "")

		link := func(channel int64, name, topic, with, text string) string {
			href := "/#narrow/channel/" + itoa(channel) + "-" + name + "/topic/" + topic
			if with != "" {
				href += "/with/" + with
			}
			return `<a class="stream-topic" data-stream-id="` + itoa(channel) + `" href="` + href + `">#` + name + " &gt; " + text + `</a>`
		}
		wantRenders(t, f, []renderCase{
			{"#**pub>plans**", "<p>" + link(pub, "pub", "plans", itoa(first), "plans") + "</p>"},
			{"#**pub>nothing yet**", "<p>" + link(pub, "pub", "nothing.20yet", "", "nothing yet") + "</p>"},
			// The member joined the private channel after its first message.
			{"#**priv>secret**", "<p>" + link(priv, "priv", "secret", itoa(received), "secret") + "</p>"},
			{"#**pub>**", "<p>" + link(pub, "pub", "", itoa(received+1), "<em>general chat</em>") + "</p>"},
			{"#**pub>plans@" + itoa(first) + "**", `<p><a class="message-link" href="/#narrow/channel/` + itoa(pub) + "-pub/topic/plans/near/" +
				itoa(first) + `">#pub &gt; plans @ 💬</a></p>`},
		})
		// The administrator received the private channel's first message.
		got, err := f.svc.RenderMessage(ctx, chat.AsUser(f.admin.ID), "#**priv>secret**")
		wantNoErr(t, "RenderMessage", err)
		diff(t, "administrator's link", got, "<p>"+link(priv, "priv", "secret", itoa(hidden), "secret")+"</p>")

		// Links need the channel's content: the owner administers the
		// private channel without reading it, and links only the public one.
		got, err = f.svc.RenderMessage(ctx, chat.AsUser(f.owner.ID), "#**priv** #**pub**")
		wantNoErr(t, "RenderMessage as owner", err)
		diff(t, "owner's links", got, `<p>#<strong>priv</strong> <a class="stream" data-stream-id="`+itoa(pub)+`" href="/#narrow/channel/`+
			itoa(pub)+`-pub">#pub</a></p>`)

		// A sent message stores the links it rendered, whether rendered in
		// its write transaction or, linking many topics, before it.
		plans := link(pub, "pub", "plans", itoa(first), "plans")
		for content, want := range map[string]string{
			"see #**pub>plans**": "<p>see " + plans + "</p>",
			strings.Repeat("#**pub>plans** ", 5) + "#**priv>secret**": "<p>" + strings.Repeat(plans+" ", 5) +
				link(priv, "priv", "secret", itoa(received), "secret") + "</p>",
		} {
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), pub, "t", content)
			wantNoErr(t, "send link", err)
			m, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageFormat{ApplyMarkdown: true})
			wantNoErr(t, "GetMessage", err)
			diff(t, "stored link", m.Content, want)
		}
	})
}

// TestDescriptionsRenderAsMessages: the descriptions of channels, channel
// folders and the organization render as the reference renders them, with
// the renderer of messages: mentions, channel links for the writer's
// access, emoji and the organization's linkifiers.
func TestDescriptionsRenderAsMessages(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		admin := chat.AsUser(f.admin.ID)
		_, err := f.svc.AddLinkifier(ctx, admin, chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`,
			URLTemplate: "https://tracker.example.com/{id}"})
		wantNoErr(t, "AddLinkifier", err)
		help := subscribeTo(t, f, "help", f.admin.ID)
		name := fullName(t, f, f.member.ID)
		text := "Ask in #**help** or @**" + name + "** :smile: about #12"
		want := `<p>Ask in <a class="stream" data-stream-id="` + itoa(help) + `" href="/#narrow/channel/` + itoa(help) + `-help">#help</a> or ` +
			`<span class="user-mention" data-user-id="` + itoa(f.member.ID) + `">@` + name + `</span> ` +
			`<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span> about ` +
			`<a href="https://tracker.example.com/12">#12</a></p>`
		described := func(name string) string {
			t.Helper()
			cs, err := f.svc.Channels(ctx, admin, chat.DefaultChannelQuery)
			wantNoErr(t, "Channels", err)
			for _, c := range cs {
				if c.Name == name {
					return c.RenderedDescription
				}
			}
			t.Fatalf("no channel %s", name)
			return ""
		}

		_, err = f.svc.Subscribe(ctx, admin, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "new", Description: text}}})
		wantNoErr(t, "Subscribe", err)
		diff(t, "created channel", described("new"), want)
		other := "see #**help**"
		wantNoErr(t, "UpdateChannel", f.svc.UpdateChannel(ctx, admin, help, chat.ChannelUpdate{Description: &other}))
		diff(t, "updated channel", described("help"), `<p>see <a class="stream" data-stream-id="`+itoa(help)+`" href="/#narrow/channel/`+
			itoa(help)+`-help">#help</a></p>`)

		folder, err := f.svc.CreateChannelFolder(ctx, admin, "Support", text)
		wantNoErr(t, "CreateChannelFolder", err)
		folders, err := f.svc.ChannelFolders(ctx, admin, false)
		wantNoErr(t, "ChannelFolders", err)
		for _, fv := range folders {
			if fv.ID == folder {
				diff(t, "folder", fv.RenderedDescription, want)
			}
		}

		// The organization's, kept once rendered, until it changes: the
		// first read keeps the rendering of the description before.
		_, err = f.svc.ServerSettings(ctx, host1)
		wantNoErr(t, "ServerSettings", err)
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.owner.ID), chat.RealmUpdate{Description: &text})
		wantNoErr(t, "UpdateRealm", err)
		settings, err := f.svc.ServerSettings(ctx, host1)
		wantNoErr(t, "ServerSettings", err)
		diff(t, "organization", *settings.RealmDescription, want)
	})
}

// TestRenderedLengthBound: content whose rendering would be longer than
// MaxRenderedLength (here a linkifier's long URL for each of hundreds of
// "#1") is refused with ErrUnableToRender, as the reference refuses it,
// when sent, edited or rendered, and nothing is written; a little less is
// kept. URL templates longer than MaxURLTemplateLength are refused.
func TestRenderedLengthBound(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner := chat.AsUser(f.owner.ID)
		prefix, suffix := "https://example.org/", "/{id}"
		long := prefix + strings.Repeat("a", chat.MaxURLTemplateLength-len(prefix)-len(suffix)) + suffix
		_, err := f.svc.AddLinkifier(ctx, owner, chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`, URLTemplate: long + "b"})
		wantErr(t, "a template one character too long", err, &chat.Error{Code: chat.CodeBadRequest,
			Msg:  "Ensure this value has at most 2048 characters (it has 2049).",
			Data: map[string]any{"errors": map[string][]string{"url_template": {"Ensure this value has at most 2048 characters (it has 2049)."}}}})
		_, err = f.svc.AddLinkifier(ctx, owner, chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`, URLTemplate: long})
		wantNoErr(t, "AddLinkifier", err)

		// Each "#1" renders as a link of about 2 070 bytes.
		within, past := strings.Repeat("#1 ", 470), strings.Repeat("#1 ", 490)
		alpha := subscribeTo(t, f, "alpha", f.member.ID)
		member := chat.AsUser(f.member.ID)
		id, err := f.svc.PostChannelMessage(ctx, member, alpha, "t", within)
		wantNoErr(t, "send within the bound", err)
		_, err = f.svc.PostChannelMessage(ctx, member, alpha, "t", past)
		wantErr(t, "send past the bound", err, chat.ErrUnableToRender)
		_, err = f.svc.UpdateMessage(ctx, member, id, chat.MessageEdit{Content: &past})
		wantErr(t, "edit past the bound", err, chat.ErrUnableToRender)
		_, err = f.svc.RenderMessage(ctx, member, past)
		wantErr(t, "render past the bound", err, chat.ErrUnableToRender)

		res, err := f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](5),
			Narrow: []chat.NarrowElement{{Operator: "channel", Operand: alpha}}, Format: chat.MessageFormat{ApplyMarkdown: true}})
		wantNoErr(t, "GetMessages", err)
		var ids []int64
		html := ""
		for _, m := range res.Messages {
			if m.SenderID == f.member.ID {
				ids, html = append(ids, m.ID), m.Content
			}
		}
		if len(ids) != 1 || ids[0] != id {
			t.Fatalf("the member's messages in the channel: %v, want only %d", ids, id)
		}
		if n := strings.Count(html, "<a href="); n != 470 || len(html) > chat.MaxRenderedLength || len(html) < chat.MaxRenderedLength*9/10 {
			t.Errorf("the message within the bound: %d links, %d bytes", n, len(html))
		}
	})
}
