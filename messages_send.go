package chat

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
)

// MessageTo is the "to" of a message being sent: channel or user IDs, or
// channel names or user addresses, as ParseMessageTo reads them.
type MessageTo struct {
	IDs   []int64
	Names []string
}

// ParseMessageTo reads the "to" parameter of POST /messages: a JSON integer, string or list of either, or else plain text: a
// channel name, or comma-separated addresses for direct messages.
//
// Errors: "Recipient lists may contain emails or user IDs, but not both."
// and "Invalid data type for recipients" / "Invalid data type for channel"
// (direct tells which).
func ParseMessageTo(raw string, direct bool) (MessageTo, error) {
	badType := errorf("Invalid data type for channel")
	if direct {
		badType = errorf("Invalid data type for recipients")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		if !direct {
			return MessageTo{Names: []string{raw}}, nil
		}
		var names []string
		for _, part := range strings.Split(raw, ",") {
			if p := strings.TrimSpace(part); p != "" {
				names = append(names, p)
			}
		}
		return MessageTo{Names: names}, nil
	}
	items := []any{v}
	if list, ok := v.([]any); ok {
		items = list
	}
	var out MessageTo
	for _, it := range items {
		switch x := it.(type) {
		case json.Number:
			id, err := strconv.ParseInt(x.String(), 10, 64)
			if err != nil {
				return MessageTo{}, badType
			}
			out.IDs = append(out.IDs, id)
		case string:
			out.Names = append(out.Names, x)
		default:
			return MessageTo{}, badType
		}
	}
	if out.IDs != nil && out.Names != nil {
		return MessageTo{}, errorf("Recipient lists may contain emails or user IDs, but not both.")
	}
	if out.IDs == nil && out.Names == nil {
		out.Names = []string{}
	}
	return out, nil
}

// SendMessageRequest describes a message to send (POST /messages).
type SendMessageRequest struct {
	// Type is "stream" or "channel" for a channel message, "direct" or
	// "private" (deprecated) for a direct message.
	Type string
	// To names the channel (one ID or name) or the users (IDs or
	// addresses); nil means the parameter was not sent.
	To *MessageTo
	// Topic is the channel message's topic; nil means not sent.
	Topic *string
	// Content is the Markdown source.
	Content string
	// Client is the sending program's name; empty means "API".
	Client string
	// ReadBySender marks the message read for its sender; nil means true
	// for the official interactive clients (see OfficialClient).
	ReadBySender *bool
	// QueueID and LocalID make the sender's event queue with that ID get
	// local_message_id = LocalID with the message event.
	QueueID, LocalID string
}

// Message sending texts.
var (
	ErrInvalidMessageType    = errorf("Invalid type")
	ErrMissingChannel        = errorf("Missing channel")
	ErrExpectedOneChannel    = errorf("Expected exactly one channel")
	ErrMissingTopic          = errorf("Missing topic")
	ErrNoRecipients          = errorf("Message must have recipients")
	ErrEmptyMessage          = errorf("Message must not be empty")
	ErrMessageNullBytes      = errorf("Message must not contain null bytes")
	ErrNoPostPermission      = errorf("You do not have permission to post in this channel.")
	ErrEmptyTopicDisallowed  = errorf("Sending messages to the general chat is not allowed in this channel.")
	ErrOnlyEmptyTopicAllowed = errorf("Only the general chat topic is allowed in this channel.")
	ErrInvalidMessage        = errorf("Invalid message(s)")
	// ErrUnableToRender refuses content whose rendering outlasts
	// Config.RenderTimeBudget or would be longer than MaxRenderedLength,
	// as the reference refuses content its renderer gives up on.
	ErrUnableToRender = errorf("Unable to render message")
	// ErrStreamWildcardMention refuses @all, @everyone and @channel in a
	// channel of more than wildcardMentionThreshold subscribers from
	// someone who may not notify many users.
	ErrStreamWildcardMention = &Error{Code: CodeStreamWildcardNotAllowed,
		Msg: "You do not have permission to use channel wildcard mentions in this channel."}
	// ErrTopicWildcardMention refuses @topic in a topic of more than
	// wildcardMentionThreshold participants, likewise.
	ErrTopicWildcardMention = &Error{Code: CodeTopicWildcardNotAllowed,
		Msg: "You do not have permission to use topic wildcard mentions in this topic."}
)

// Truncation marks of long content and topics.
const (
	messageTruncated = "\n[message truncated]"
	topicTruncated   = "..."
)

// OfficialClient reports whether a client name is one of the reference
// server's interactive applications, whose messages are read by their
// sender on sending.
func OfficialClient(name string) bool {
	switch name {
	case "website", "ZulipMobile", "ZulipAndroid", "ZulipiOS", "ZulipDesktop", "ZulipElectron",
		"ZulipTerminal", "ZulipFlutter":
		return true
	}
	return false
}

// normaliseContent strips trailing white space and leading newlines and
// truncates content over the message length limit.
func normaliseContent(content string) (string, error) {
	content = strings.TrimRightFunc(content, unicode.IsSpace)
	content = strings.TrimLeft(content, "\n")
	if content == "" {
		return "", ErrEmptyMessage
	}
	if strings.IndexByte(content, 0) >= 0 {
		return "", ErrMessageNullBytes
	}
	if utf8.RuneCountInString(content) > MaxMessageLength {
		keep := MaxMessageLength - len(messageTruncated)
		content = string([]rune(content)[:keep]) + messageTruncated
	}
	return content, nil
}

// normaliseTopic strips a topic, reads the empty topic's names as "",
// truncates long topics and refuses control characters.
func normaliseTopic(topic string) (string, error) {
	topic = strings.TrimSpace(topic)
	if topic == EmptyTopicDisplayName || topic == "(no topic)" {
		return "", nil
	}
	if utf8.RuneCountInString(topic) > MaxTopicLength {
		topic = string([]rune(topic)[:MaxTopicLength-len(topicTruncated)]) + topicTruncated
	}
	if pos := badCharacter(topic); pos > 0 {
		return "", errorf("Invalid character in topic, at position %d!", pos)
	}
	return topic, nil
}

// channelNotFound is STREAM_DOES_NOT_EXIST for a channel named by ID or by
// name.
func channelNotFound(to *MessageTo) *Error {
	if len(to.IDs) > 0 {
		id := to.IDs[0]
		return &Error{Code: CodeStreamDoesNotExist, Msg: "Channel with ID '" + strconv.FormatInt(id, 10) + "' does not exist",
			Data: map[string]any{"stream_id": id}}
	}
	name := to.Names[0]
	return &Error{Code: CodeStreamDoesNotExist, Msg: "Channel '" + html.EscapeString(name) + "' does not exist",
		Data: map[string]any{"stream": html.EscapeString(name)}}
}

// effectiveTopicsPolicy is the channel's policy, or the organization's when
// the channel inherits it.
func effectiveTopicsPolicy(c *storage.Channel, r *Realm) TopicsPolicy {
	if c.TopicsPolicy == TopicsInherit || c.TopicsPolicy == "" {
		return r.TopicsPolicy
	}
	return c.TopicsPolicy
}

// SendMessage sends a message from the actor to a channel topic or to
// users, and returns its ID. Any active user may send to a channel they may
// post in: a subscribed one, or a public one for members; the channel's
// can_send_message_group must include them.
//
// Errors, in order: ErrInvalidMessageType; ErrMissingChannel,
// ErrExpectedOneChannel, ErrMissingTopic or ErrNoRecipients for missing
// recipients; STREAM_DOES_NOT_EXIST for an unknown or hidden channel;
// "Not authorized to send to channel '{name}'"; ErrNoPostPermission;
// "Invalid character in topic, at position {n}!"; ErrEmptyTopicDisallowed,
// ErrOnlyEmptyTopicAllowed; "Invalid user ID {id}", "Invalid email
// '{email}'", "'{email}' is no longer using Zulip."; ErrEmptyMessage,
// ErrMessageNullBytes; ErrStreamWildcardMention, ErrTopicWildcardMention
// for a wildcard mention of more than 15 users by someone other than an
// administrator; "You are not allowed to mention user group '{name}'."
// for a mention of a group outside the group's can_mention_group; and
// those of the actor check.
func (s *Service) SendMessage(ctx context.Context, actor Actor, req SendMessageRequest) (int64, error) {
	var channel bool
	switch req.Type {
	case "stream", "channel":
		channel = true
	case "direct", "private":
	default:
		return 0, ErrInvalidMessageType
	}
	var (
		id       int64
		m        *storage.MessageRecord
		outgoing []outgoingCall
	)
	pre, err := s.preRender(ctx, actor, req.Content)
	if err != nil {
		return 0, err
	}
	err = s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		m = &storage.MessageRecord{RealmID: cc.realm.ID, SenderID: cc.actor.ID, DateSent: s.now(), Client: req.Client}
		if m.Client == "" {
			m.Client = "API"
		}
		var c *storage.Channel
		if channel {
			c, err = s.channelRecipient(tx, cc, &req, m)
		} else {
			err = s.directRecipients(tx, cc, &req, m)
		}
		if err != nil {
			return err
		}
		if m.Content, err = normaliseContent(req.Content); err != nil {
			return err
		}
		read := OfficialClient(req.Client)
		if req.ReadBySender != nil {
			read = *req.ReadBySender
		}
		var rendered []deliveryRendering
		o := deliverOptions{
			sender: &cc.actor, readBySender: read, canLink: func(c *storage.Channel) bool { return cc.access(c).content(c) },
			queueID: req.QueueID, localID: req.LocalID, rendered: &rendered, realm: &cc.realm,
		}
		if c != nil {
			o.channels = map[int64]*storage.Channel{c.ID: c}
		}
		emoticons, err := translatesEmoticons(tx, cc.actor.ID, m.Content)
		if err != nil {
			return err
		}
		o.emoticons = &emoticons
		if r, ok := pre.of(cc.realm.ID, m.Content, emoticons); ok {
			o.prerendered = []markdown.Result{r}
		}
		err = s.deliver(tx, emit, cc.realm.ID, []*storage.MessageRecord{m}, o)
		if err != nil {
			return err
		}
		id = m.ID
		outgoing, err = s.planOutgoingWebhooks(tx, m, &cc.actor, rendered[0].mentioned)
		return err
	})
	if err == nil {
		s.startOutgoingWebhooks(outgoing, m)
	}
	return id, err
}

// channelRecipient resolves and checks the channel and topic of a channel
// message; it returns the channel.
func (s *Service) channelRecipient(tx storage.Tx, cc *channelContext, req *SendMessageRequest, m *storage.MessageRecord) (*storage.Channel, error) {
	to := req.To
	if to == nil || len(to.IDs)+len(to.Names) == 0 {
		return nil, ErrMissingChannel
	}
	if len(to.IDs)+len(to.Names) > 1 {
		return nil, ErrExpectedOneChannel
	}
	if req.Topic == nil {
		return nil, ErrMissingTopic
	}
	var c storage.Channel
	var err error
	if len(to.IDs) > 0 {
		c, err = tx.Channel(to.IDs[0])
	} else {
		var cs []storage.Channel
		cs, err = storage.ChannelsByName(tx, cc.realm.ID, []string{storage.ChannelNameKey(to.Names[0])})
		if err == nil && len(cs) == 0 {
			err = storage.ErrNotFound
		}
		if err == nil {
			c = cs[0]
		}
	}
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (c.RealmID != cc.realm.ID || !cc.access(&c).metadata(&c))) {
		return nil, channelNotFound(to)
	}
	if err != nil {
		return nil, err
	}
	_, subscribed := cc.subs[c.ID]
	if c.IsArchived || !(subscribed || (!c.InviteOnly && cc.actor.Role != RoleGuest)) {
		return nil, errorf("Not authorized to send to channel '%s'", c.Name)
	}
	if !cc.g.allows(c.CanSendMessageGroup, &cc.actor) {
		return nil, ErrNoPostPermission
	}
	topic, err := normaliseTopic(*req.Topic)
	if err != nil {
		return nil, err
	}
	switch effectiveTopicsPolicy(&c, &cc.realm) {
	case TopicsDisableEmpty:
		if topic == "" {
			return nil, ErrEmptyTopicDisallowed
		}
	case TopicsEmptyTopicOnly:
		if topic != "" {
			return nil, ErrOnlyEmptyTopicAllowed
		}
	}
	m.RecipientType, m.ChannelID, m.Topic = RecipientChannel, c.ID, topic
	return &c, nil
}

// directRecipients resolves and checks the users of a direct message.
func (s *Service) directRecipients(tx storage.Tx, cc *channelContext, req *SendMessageRequest, m *storage.MessageRecord) error {
	to := req.To
	if to == nil || len(to.IDs)+len(to.Names) == 0 {
		return ErrNoRecipients
	}
	ids := []int64{cc.actor.ID}
	domain := s.emailDomain(cc.realm)
	for _, id := range to.IDs {
		u, err := targetUser(tx, cc.realm.ID, id)
		if errors.Is(err, ErrNoSuchUser) {
			return errorf("Invalid user ID %d", id)
		}
		if err != nil {
			return err
		}
		if !u.IsActive {
			return errorf("'%s' is no longer using Zulip.", apiEmail(&u, domain))
		}
		ids = append(ids, u.ID)
	}
	for _, email := range to.Names {
		u, err := s.userByAPIEmail(tx, cc.realm, &cc.actor, email)
		if errors.Is(err, storage.ErrNotFound) {
			return errorf("Invalid email '%s'", email)
		}
		if err != nil {
			return err
		}
		if !u.IsActive {
			return errorf("'%s' is no longer using Zulip.", email)
		}
		ids = append(ids, u.ID)
	}
	ids = uniqueIDs(ids)
	slices.Sort(ids)
	m.RecipientType, m.DirectUserIDs = RecipientDirect, ids
	return nil
}

// userByAPIEmail finds a user of the realm by their placeholder address,
// or by a real address that viewer may see; ErrNotFound when none.
func (s *Service) userByAPIEmail(tx storage.Tx, realm Realm, viewer *storage.UserRecord, email string) (storage.UserRecord, error) {
	u, err := tx.UserByEmail(realm.ID, email)
	if err == nil && emailVisibleTo(viewer, &u) || err != nil && !errors.Is(err, storage.ErrNotFound) {
		return u, err
	}
	if id, ok := placeholderID(email, s.emailDomain(realm)); ok {
		u, err := tx.User(id)
		if err == nil && u.RealmID == realm.ID {
			return u, nil
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return storage.UserRecord{}, err
		}
	}
	return storage.UserRecord{}, storage.ErrNotFound
}

// PostChannelMessage sends a message from the user to a channel topic: a
// shorthand of SendMessage for tests and embedding programs.
func (s *Service) PostChannelMessage(ctx context.Context, actor Actor, channelID int64, topic, content string) (int64, error) {
	return s.SendMessage(ctx, actor, SendMessageRequest{Type: "channel", To: &MessageTo{IDs: []int64{channelID}},
		Topic: &topic, Content: content})
}

// preRendered is a message's rendering made before its write transaction.
type preRendered struct {
	realmID int64
	content string
	// emoticons is whether the rendering translated emoticons.
	emoticons bool
	result    markdown.Result
}

// of returns the rendering when it was made of content in the realm, with
// emoticons translated or not as emoticons says.
func (p *preRendered) of(realmID int64, content string, emoticons bool) (markdown.Result, bool) {
	if p == nil || p.realmID != realmID || p.content != content || p.emoticons != emoticons {
		return markdown.Result{}, false
	}
	return p.result, true
}

// preRenderMinBytes is the length from which a message is rendered before
// its write transaction: shorter ones render in microseconds, less than
// the read transaction would cost, unless they have code to highlight
// (markdown.MayHighlight), which takes milliseconds.
const preRenderMinBytes = 1000

// quickHighlightBudget is the time a short message's code blocks may spend
// in the lexers outside the heavy slots: its less than 1 000 bytes take at
// most about 6 ms here; what takes longer is highlighted again in a heavy
// slot, within Config.HighlightBudget.
const quickHighlightBudget = 20 * time.Millisecond

// renderedAhead reports whether content is rendered before its write
// transaction (renderAhead): long content, content with code to highlight
// or math to render, and content that may link more topics than
// aheadTopicLinks, each a read (loadTopicFirsts) that would otherwise hold
// the write.
func renderedAhead(content string) bool {
	return len(content) >= preRenderMinBytes || markdown.MayHighlight(content) || markdown.MayHaveTeX(content) ||
		strings.Count(content, "#**") > aheadTopicLinks
}

// aheadTopicLinks is the number of channel and topic links from which
// content is rendered before its write transaction.
const aheadTopicLinks = 4

// renderAhead renders content that is rendered before its write. Long
// content renders in a heavy slot (renderWithin). Short content with code
// or math renders at once, its highlighting and math within
// s.quickHighlight each, so that it does not wait behind password hashes
// for a slot; when that was not enough, it renders again in a heavy slot
// with the whole budget, so that the rendering does not depend on which
// path made it.
func (s *Service) renderAhead(ctx context.Context, rc *renderContext, content string) (markdown.Result, error) {
	if len(content) < preRenderMinBytes {
		rc.env.HighlightBudget, rc.env.TeXBudget = s.quickHighlight, s.quickHighlight
		res, err := s.renderContent(rc, content)
		if err != nil || !res.HighlightCut && !res.TeXCut {
			return res, err
		}
		rc.env.HighlightBudget, rc.env.TeXBudget = s.cfg.HighlightBudget, s.cfg.HighlightBudget
	}
	return s.renderWithin(ctx, rc, content)
}

// preRender renders the content of a long message to be sent or edited,
// or of one with code to highlight (renderedAhead, renderAhead), in a read
// transaction of its own, so that the single writer is not held while
// Markdown, the lexers and the organization's linkifiers run over it; nil
// for other content, content that would be refused (the write transaction
// then reports it, in its order), or reads that fail. The write uses the
// rendering when the content it stores is the same.
//
// The rendering has Config.RenderTimeBudget: past it, or when the request
// ends, it fails with ErrUnableToRender or the context's error, and the
// message is not written.
func (s *Service) preRender(ctx context.Context, actor Actor, raw string) (*preRendered, error) {
	if !renderedAhead(raw) {
		return nil, nil
	}
	content, err := normaliseContent(raw)
	if err != nil {
		return nil, nil
	}
	var (
		rc      *renderContext
		realmID int64
	)
	err = s.view(ctx, actor, func(tx storage.Tx) error {
		u, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		// The channels the sender may link are read only for content that
		// links one.
		var canLink func(*storage.Channel) bool
		if strings.Contains(content, "#**") {
			cc, err := s.channelContext(tx, actor)
			if err != nil {
				return err
			}
			canLink = func(c *storage.Channel) bool { return cc.access(c).content(c) }
		}
		realmID = realm.ID
		if rc, err = s.newRenderContext(tx, realm.ID, &realm, content, canLink, u.ID); err != nil {
			return err
		}
		// The actor's setting: the sender's, or the editor's, who is the
		// sender (only senders edit content).
		rc.env.TranslateEmoticons, err = translatesEmoticons(tx, u.ID, content)
		return err
	})
	if err != nil {
		return nil, nil // the write transaction reports it
	}
	res, err := s.renderAhead(ctx, rc, content)
	if err != nil {
		return nil, err
	}
	return &preRendered{realmID: realmID, content: content, emoticons: rc.env.TranslateEmoticons, result: res}, nil
}

// renderWithin renders long content in a heavy slot, as password hashes
// take, so that long messages sent back to back (and failed logins beside
// them) leave half the CPUs to every other request; and within
// Config.RenderTimeBudget. When the budget passes or ctx ends first, the
// caller gets ErrUnableToRender or ctx's error at once, and the rendering
// is told to stop at its next text; it keeps its slot until it has.
func (s *Service) renderWithin(ctx context.Context, rc *renderContext, content string) (markdown.Result, error) {
	release, err := s.heavySlot(ctx)
	if err != nil {
		return markdown.Result{}, err
	}
	var stop atomic.Bool
	rc.env.Stop = stop.Load
	type result struct {
		res markdown.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.renderContent(rc, content)
		// Released before the result is handed over, so that a caller
		// that has its result finds the slot resting or free.
		release()
		done <- result{res, err}
	}()
	budget := time.NewTimer(s.cfg.RenderTimeBudget)
	defer budget.Stop()
	select {
	case r := <-done:
		if r.res.Stopped {
			return markdown.Result{}, ErrUnableToRender
		}
		return r.res, r.err
	case <-budget.C:
		stop.Store(true)
		return markdown.Result{}, ErrUnableToRender
	case <-ctx.Done():
		stop.Store(true)
		return markdown.Result{}, ctx.Err()
	}
}
