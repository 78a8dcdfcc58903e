package chat

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
)

// renderContext is what rendering messages of one organization reads: its
// users, the channels the sender may link, and its linkifiers. The
// Markdown itself is internal/markdown's.
type renderContext struct {
	// usersByName holds users by folded full name; an ambiguous name maps
	// to nil. usersByID holds them by ID.
	usersByName map[string]*storage.UserRecord
	usersByID   map[int64]*storage.UserRecord
	// groups are the organization's user groups, when the content may
	// mention one; groupsByName holds them by folded name.
	groups       *groups
	groupsByName map[string]*storage.UserGroup
	// channels holds the channels that may be linked, by name key.
	channels   map[string]*storage.Channel
	linkifiers []compiledWithID
	env        markdown.Env
}

type compiledWithID struct {
	c  compiledLinkifier
	id int64
}

// compileLinkifiers compiles the stored linkifiers once per render.
func compileLinkifiers(ls []Linkifier) []compiledWithID {
	out := make([]compiledWithID, 0, len(ls))
	for _, l := range ls {
		if c, ok := compileForUse(l); ok {
			out = append(out, compiledWithID{c, l.ID})
		}
	}
	return out
}

// linkify finds the linkifier matches of text (see Linkify), stopping
// once their URLs are longer than maxBytes in all (when maxBytes > 0): the
// rendering they are for fails past that length anyway.
func linkify(ls []compiledWithID, s string, maxBytes int) []LinkMatch {
	var out []LinkMatch
	var room *int
	if maxBytes > 0 {
		room = &maxBytes
	}
	for _, l := range ls {
		if out = l.c.apply(s, l.id, out, room); room != nil && *room < 0 {
			break
		}
	}
	slices.SortFunc(out, func(a, b LinkMatch) int { return a.Start - b.Start })
	return out
}

// translatesEmoticons reports whether content sent by the user renders its
// emoticons as emoji: the user's translate_emoticons setting, read only
// when the content may hold one (markdown.MayHaveEmoticon).
func translatesEmoticons(tx storage.Tx, userID int64, content string) (bool, error) {
	if userID == 0 || !markdown.MayHaveEmoticon(content) {
		return false, nil
	}
	settings, err := tx.UserSettings(userID)
	if err != nil {
		return false, err
	}
	return settings["translate_emoticons"] == "true", nil
}

// MaxRenderedLength bounds a rendered message or description, in bytes,
// as the reference bounds it (100 times its longest message): a short
// text can expand far past it (a linkifier's URL for each "#1", a formula
// for each "$$x$$"), and what would pass it is refused with
// ErrUnableToRender rather than stored and sent to every recipient.
const MaxRenderedLength = 100 * MaxMessageLength

// render renders message content: every rendering of a message or a
// description comes here. ErrUnableToRender when it would be longer than
// MaxRenderedLength (rc.env.MaxHTML).
func (rc *renderContext) render(src string) (markdown.Result, error) {
	res := markdown.RenderMessage(src, &rc.env)
	if res.TooLong {
		return markdown.Result{}, ErrUnableToRender
	}
	return res, nil
}

// newRenderContext loads what rendering content needs: the users and
// channels only when the content may mention them. canLink decides which
// channels may be linked (those the sender may read, as in the reference:
// administering a channel is not enough), and actorID is the
// sender or editor (0: none, as for the notification bot), whose access
// decides which message of a linked topic comes first. realm is the
// organization's record when the caller has read it in tx, nil to read it
// only if the content needs it.
func (s *Service) newRenderContext(tx storage.Tx, realmID int64, realm *storage.Realm, content string,
	canLink func(*storage.Channel) bool, actorID int64) (*renderContext, error) {
	rc := &renderContext{}
	rc.env = markdown.Env{Emoji: referenceEmojiCode, EmojiName: referenceEmojiName, EmptyTopicName: EmptyTopicDisplayName,
		HighlightBudget: s.cfg.HighlightBudget, TeXBudget: s.cfg.HighlightBudget, MaxHTML: MaxRenderedLength}
	if strings.Contains(content, "/#") || strings.Contains(content, "/user_uploads/") ||
		strings.Contains(content, "```") || strings.Contains(content, "~~~") {
		// It may link the organization's own views or uploads, or have
		// code blocks in its default language.
		if realm == nil {
			r, err := tx.Realm(realmID)
			if err != nil {
				return nil, err
			}
			realm = &r
		}
		rc.env.RealmURL = strings.TrimSuffix(realm.URL, "/")
		rc.env.DefaultCodeLanguage = realm.DefaultCodeBlockLanguage
	}
	if strings.Contains(content, "@**") || strings.Contains(content, "@_**") {
		if err := rc.loadUsers(tx, realmID); err != nil {
			return nil, err
		}
	}
	if hasGroupMention(content) {
		if err := rc.loadGroups(tx, realmID); err != nil {
			return nil, err
		}
	}
	if strings.Contains(content, "#**") {
		channels, err := tx.Channels(realmID)
		if err != nil {
			return nil, err
		}
		rc.channels = map[string]*storage.Channel{}
		for i := range channels {
			c := &channels[i]
			if canLink == nil || canLink(c) {
				rc.channels[storage.ChannelNameKey(c.Name)] = c
			}
		}
		rc.env.Channel = func(name string) (markdown.Channel, bool) {
			c := rc.channels[storage.ChannelNameKey(name)]
			if c == nil {
				return markdown.Channel{}, false
			}
			return markdown.Channel{ID: c.ID, Name: c.Name}, true
		}
		if strings.Contains(content, ">") {
			if err := rc.loadTopicFirsts(tx, realmID, actorID, content); err != nil {
				return nil, err
			}
		}
	}
	ls, err := realmLinkifiers(tx, realmID)
	if err != nil {
		return nil, err
	}
	if rc.linkifiers = compileLinkifiers(ls); len(rc.linkifiers) > 0 {
		rc.env.Linkify = func(text string) []markdown.Link {
			ms := linkify(rc.linkifiers, text, rc.env.MaxHTML)
			out := make([]markdown.Link, len(ms))
			for i, m := range ms {
				out[i] = markdown.Link{Start: m.Start, End: m.End, URL: m.URL}
			}
			return out
		}
	}
	return rc, nil
}

// maxTopicLinks bounds the topics whose first message one rendering looks
// up, a read each: a long message could otherwise link hundreds. Links to
// further topics leave out "/with/".
const maxTopicLinks = 100

// loadTopicFirsts reads, for each topic that content may link
// (#**channel>topic**) in a channel it may link, the topic's first message
// the actor may read, as the reference's topic links name it: the first
// of the topic when the channel's history is open to its subscribers, else
// the first the actor received (none without an actor).
func (rc *renderContext) loadTopicFirsts(tx storage.Tx, realmID, actorID int64, content string) error {
	type topicRef struct {
		channelID int64
		key       string
	}
	firsts := map[topicRef]int64{}
	looked := map[topicRef]bool{}
	var err error
	markdown.LinkedTopics(content, func(name, topic string) bool {
		c := rc.channels[storage.ChannelNameKey(name)]
		if c == nil {
			return true
		}
		k := topicRef{c.ID, storage.TopicKey(topic)}
		if looked[k] {
			return true
		}
		looked[k] = true
		history := !c.InviteOnly || c.HistoryPublicToSubscribers
		if !history && actorID == 0 {
			return len(looked) < maxTopicLinks
		}
		var rows []storage.MessageRow
		rows, err = tx.FindMessages(storage.MessageFilter{RealmID: realmID, UserID: actorID, ChannelHistory: history,
			ChannelID: c.ID, TopicKey: &k.key, Limit: 1, WithoutContent: true})
		if err != nil {
			return false
		}
		if len(rows) > 0 {
			firsts[k] = rows[0].Message.ID
		}
		return len(looked) < maxTopicLinks
	})
	if err != nil {
		return err
	}
	rc.env.TopicWith = func(channelID int64, topic string) (int64, bool) {
		id, ok := firsts[topicRef{channelID, storage.TopicKey(topic)}]
		return id, ok
	}
	return nil
}

// loadUsers reads the organization's users for mentions.
func (rc *renderContext) loadUsers(tx storage.Tx, realmID int64) error {
	users, err := tx.Users(realmID, nil)
	if err != nil {
		return err
	}
	rc.usersByName = make(map[string]*storage.UserRecord, len(users))
	rc.usersByID = make(map[int64]*storage.UserRecord, len(users))
	for i := range users {
		u := &users[i]
		rc.usersByID[u.ID] = u
		key := strings.ToLower(u.FullName)
		if _, dup := rc.usersByName[key]; dup {
			rc.usersByName[key] = nil
		} else {
			rc.usersByName[key] = u
		}
	}
	found := func(u *storage.UserRecord) (markdown.User, bool) {
		if u == nil {
			return markdown.User{}, false
		}
		return markdown.User{ID: u.ID, FullName: u.FullName, Deactivated: !u.IsActive}, true
	}
	rc.env.UserByName = func(name string) (markdown.User, bool) { return found(rc.usersByName[strings.ToLower(name)]) }
	rc.env.UserByID = func(id int64) (markdown.User, bool) { return found(rc.usersByID[id]) }
	return nil
}

// hasGroupMention reports whether content may mention a user group:
// @*name* or @_*name*, not the user mentions @**name** and @_**name**.
func hasGroupMention(content string) bool {
	for i := 0; i < len(content); {
		j := strings.Index(content[i:], "@")
		if j < 0 {
			return false
		}
		rest := strings.TrimPrefix(content[i+j+1:], "_")
		if strings.HasPrefix(rest, "*") && !strings.HasPrefix(rest, "**") {
			return true
		}
		i += j + 1
	}
	return false
}

// loadGroups reads the organization's user groups for group mentions.
func (rc *renderContext) loadGroups(tx storage.Tx, realmID int64) error {
	g, err := loadGroups(tx, realmID)
	if err != nil {
		return err
	}
	rc.groups = g
	rc.groupsByName = make(map[string]*storage.UserGroup, len(g.list))
	for i := range g.list {
		rc.groupsByName[strings.ToLower(g.list[i].Name)] = &g.list[i]
	}
	rc.env.Group = func(name string) (markdown.Group, bool) {
		g := rc.groupsByName[strings.ToLower(name)]
		if g == nil {
			return markdown.Group{}, false
		}
		return markdown.Group{ID: g.ID, Name: groupMentionName(g), Deactivated: g.Deactivated}, true
	}
	return nil
}

// TopicLink is a link in a topic, as message objects list them.
type TopicLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// topicLinks returns the links of a topic, as the reference lists them: the
// linkifier matches, and the web links that none of them overlaps, in the
// topic's order.
func topicLinks(topic string, ls []compiledWithID) []TopicLink {
	out := []TopicLink{}
	if topic == "" {
		return out
	}
	var matches []markdown.Link
	for _, m := range linkify(ls, topic, 0) {
		matches = append(matches, markdown.Link{Start: m.Start, End: m.End, URL: m.URL})
	}
	linkified := len(matches)
	for _, w := range markdown.TopicWebLinks(topic) {
		if !slices.ContainsFunc(matches[:linkified], func(m markdown.Link) bool { return m.Start < w.End && w.Start < m.End }) {
			matches = append(matches, w)
		}
	}
	slices.SortStableFunc(matches, func(a, b markdown.Link) int { return a.Start - b.Start })
	for _, m := range matches {
		out = append(out, TopicLink{Text: topic[m.Start:m.End], URL: m.URL})
	}
	return out
}

// topicDisplay is a topic as shown in text: the empty topic has its display
// name.
func topicDisplay(t string) string {
	if t == "" {
		return EmptyTopicDisplayName
	}
	return t
}

// DefaultHighlightBudget is Config.HighlightBudget's default.
const DefaultHighlightBudget = markdown.HighlightBudget

// DefaultRenderTimeBudget is Config.RenderTimeBudget's default: the
// reference server's limit on a message's rendering, 5 seconds.
const DefaultRenderTimeBudget = 5 * time.Second

// RenderMessage renders content as a message of the actor would be (POST
// /messages/render), storing nothing: mentions, links to the channels the
// actor can see, emoji and the organization's linkifiers. Any user may.
//
// Errors: those of the actor check; ErrUnableToRender past
// Config.RenderTimeBudget or MaxRenderedLength.
func (s *Service) RenderMessage(ctx context.Context, actor Actor, content string) (string, error) {
	var rc *renderContext
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpRenderMessage)
		if err != nil {
			return err
		}
		rc, err = s.newRenderContext(tx, cc.realm.ID, &cc.realm, content, func(c *storage.Channel) bool { return cc.access(c).content(c) }, cc.actor.ID)
		if err != nil {
			return err
		}
		rc.env.TranslateEmoticons, err = translatesEmoticons(tx, cc.actor.ID, content)
		return err
	})
	if err != nil {
		return "", err
	}
	if !renderedAhead(content) {
		res, err := s.renderContent(rc, content)
		return res.HTML, err
	}
	res, err := s.renderAhead(ctx, rc, content)
	return res.HTML, err
}

// renderDescription renders the description of a channel, a channel
// folder or the organization, or a profile field's value, as the reference
// does, with the renderer of messages: mentions, channel and topic links,
// emoji, the organization's linkifiers and code blocks. cc is the user who
// writes it, whose access decides which channels it links; nil (the
// organization's description, a profile value) links any channel, as the
// reference's does.
func (s *Service) renderDescription(tx storage.Tx, realm *storage.Realm, text string, cc *channelContext) (string, error) {
	out, err := s.renderDescriptions(tx, realm, []string{text}, cc)
	if err != nil {
		return "", err
	}
	return out[0], nil
}

// renderDescriptions renders texts as renderDescription does, reading what
// they need (users, channels, linkifiers) once for all of them, and
// nothing when they are all empty (an empty text renders empty).
func (s *Service) renderDescriptions(tx storage.Tx, realm *storage.Realm, texts []string, cc *channelContext) ([]string, error) {
	out := make([]string, len(texts))
	if !slices.ContainsFunc(texts, func(t string) bool { return t != "" }) {
		return out, nil
	}
	var canLink func(*storage.Channel) bool
	var actorID int64
	if cc != nil {
		canLink = func(c *storage.Channel) bool { return cc.access(c).content(c) }
		actorID = cc.actor.ID
	}
	rc, err := s.newRenderContext(tx, realm.ID, realm, strings.Join(texts, "\n"), canLink, actorID)
	if err != nil {
		return nil, err
	}
	// Most descriptions render in a write transaction: their code and
	// math get the budgets of a short message's, past which they are
	// written plain.
	rc.env.HighlightBudget, rc.env.TeXBudget = s.quickHighlight, s.quickHighlight
	for i, text := range texts {
		if text != "" {
			res, err := rc.render(text)
			if err != nil {
				return nil, err
			}
			out[i] = res.HTML
		}
	}
	return out, nil
}

// renderedDescriptions keeps organization descriptions as rendered, by
// organization and text, as the reference keeps its rendering until the
// description changes: GET /server_settings, which anyone may ask, would
// otherwise read the organization's users for a mention in it, and every
// /register its linkifiers.
type renderedDescriptions struct {
	mu sync.Mutex
	m  map[renderedDescriptionKey]string
}

type renderedDescriptionKey struct {
	realmID int64
	text    string
}

// maxRenderedDescriptions bounds the descriptions kept; past it the cache
// starts over.
const maxRenderedDescriptions = 1024

// realmDescription renders the organization's description
// (renderDescription), or returns it as first rendered in this process.
func (s *Service) realmDescription(tx storage.Tx, realm *storage.Realm) (string, error) {
	key := renderedDescriptionKey{realm.ID, realm.Description}
	c := &s.realmDescriptions
	c.mu.Lock()
	html, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return html, nil
	}
	html, err := s.renderDescription(tx, realm, realm.Description, nil)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxRenderedDescriptions {
		c.m = make(map[renderedDescriptionKey]string)
	}
	c.m[key] = html
	c.mu.Unlock()
	return html, nil
}
