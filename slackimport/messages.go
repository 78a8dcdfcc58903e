package slackimport

import (
	"archive/zip"
	"container/heap"
	"encoding/json"
	"errors"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat"
)

// slackMessageJSON is an element of a day file.
type slackMessageJSON struct {
	Type     string     `json:"type"`
	Subtype  string     `json:"subtype"`
	User     string     `json:"user"`
	Text     string     `json:"text"`
	TS       slackStamp `json:"ts"`
	ThreadTS slackStamp `json:"thread_ts"`
	Edited   *struct {
		TS slackStamp `json:"ts"`
	} `json:"edited"`
	Reactions []slackReactionJSON `json:"reactions"`
	Files     []slackFileJSON     `json:"files"`
	// File is the one file of a share in exports before 2019, and the
	// file that a file_comment comments.
	File *slackFileJSON `json:"file"`
	// Comment is the comment of a file_comment, in exports before 2019.
	Comment *struct {
		User    string `json:"user"`
		Comment string `json:"comment"`
	} `json:"comment"`
	// UserProfile is the sender's profile as of the message.
	UserProfile *slackProfileJSON `json:"user_profile"`
	// BotID and Username name the integration of a bot_message that has
	// no user; BotProfile is its profile in recent exports.
	BotID      string `json:"bot_id"`
	Username   string `json:"username"`
	BotProfile *struct {
		Name string `json:"name"`
	} `json:"bot_profile"`
	// Attachments are the legacy attachments that integrations post.
	Attachments []slackAttachmentJSON `json:"attachments"`
}

// files lists the files a message shares, in both layouts.
func (sm *slackMessageJSON) files() []slackFileJSON {
	if sm.File == nil || sm.File.ID == "" || slices.ContainsFunc(sm.Files, func(f slackFileJSON) bool { return f.ID == sm.File.ID }) {
		return sm.Files
	}
	return append(slices.Clone(sm.Files), *sm.File)
}

// slackReactionJSON is a reaction of a message.
type slackReactionJSON struct {
	Name  string   `json:"name"`
	Users []string `json:"users"`
}

// slackAttachmentJSON is a legacy message attachment.
type slackAttachmentJSON struct {
	Fallback  string `json:"fallback"`
	Pretext   string `json:"pretext"`
	Title     string `json:"title"`
	TitleLink string `json:"title_link"`
	Text      string `json:"text"`
	Fields    []struct {
		Title string `json:"title"`
		Value string `json:"value"`
	} `json:"fields"`
	// FromURL is set on link previews (unfurls), which repeat a link of
	// the text.
	FromURL     string `json:"from_url"`
	OriginalURL string `json:"original_url"`
}

// slackFileJSON is a file that a message shares.
type slackFileJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Title      string `json:"title"`
	Mimetype   string `json:"mimetype"`
	URLPrivate string `json:"url_private"`
	Mode       string `json:"mode"`
	// User is the file's owner.
	User string `json:"user"`
}

// eventSubtypes are the message subtypes that the import skips, as the
// reference importer does: joins, leaves, renames and pins are channel
// events that the channel's own state shows (group_* are their names in
// private channels of old exports).
var eventSubtypes = map[string]bool{
	"channel_join": true, "channel_leave": true, "channel_name": true,
	"group_join": true, "group_leave": true, "group_name": true,
	"pinned_item": true, "unpinned_item": true,
}

// meSubtypes are the subtypes whose text is an action of the sender,
// imported as "/me ...".
var meSubtypes = map[string]bool{"me_message": true, "bot_add": true, "sh_room_created": true}

// parseSlackTS reads a Slack timestamp, seconds and microseconds since the
// epoch such as "1700000000.000100", as microseconds.
func parseSlackTS(ts string) (int64, bool) {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s < 0 || len(frac) > 6 {
		return 0, false
	}
	var us int64
	if frac != "" {
		f, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || f < 0 {
			return 0, false
		}
		for i := len(frac); i < 6; i++ {
			f *= 10
		}
		us = f
	}
	return s*1_000_000 + us, true
}

// dayReader streams the messages of one day file.
type dayReader struct {
	conv *slackConv
	f    *zip.File
	rc   io.ReadCloser
	dec  *json.Decoder
	head *slackMessageJSON
	at   int64
}

// open starts reading the file and loads its first message.
func (d *dayReader) open() error {
	rc, err := d.f.Open()
	if err != nil {
		return malformed(d.f.Name, "%v", err)
	}
	d.rc, d.dec = rc, json.NewDecoder(rc)
	tok, err := d.dec.Token()
	if err == nil && tok == nil {
		return nil // null: a day without messages
	}
	if err != nil || tok != json.Delim('[') {
		return malformed(d.f.Name, "not a JSON array")
	}
	return d.next()
}

// next loads the following message into head, or sets head to nil at the
// end of the file.
func (d *dayReader) next() error {
	if !d.dec.More() {
		if _, err := d.dec.Token(); err != nil {
			return malformed(d.f.Name, "%v", err)
		}
		d.head = nil
		return nil
	}
	var m slackMessageJSON
	if err := d.dec.Decode(&m); err != nil {
		return malformed(d.f.Name, "%v", err)
	}
	at, ok := parseSlackTS(string(m.TS))
	if !ok {
		return malformed(d.f.Name, "invalid timestamp %q", m.TS)
	}
	d.head, d.at = &m, at
	return nil
}

func (d *dayReader) close() {
	if d.rc != nil {
		d.rc.Close()
	}
}

// dayHeap orders the open day files of one date by their next message.
type dayHeap []*dayReader

func (h dayHeap) Len() int { return len(h) }
func (h dayHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].f.Name < h[j].f.Name
}
func (h dayHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dayHeap) Push(x any)   { *h = append(*h, x.(*dayReader)) }
func (h *dayHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	*h = old[:len(old)-1]
	return d
}

// pendingReactions are the reactions of one message of a batch, by its
// index in the batch.
type pendingReactions struct {
	index     int
	reactions []slackReactionJSON
	at        ReportItem
}

// importMessages imports the day files date by date; the files of one
// date are merged by timestamp so that message IDs follow time across
// conversations. Only one message per open file is held in memory, plus
// the current batch.
func (im *slackImport) importMessages() error {
	byDate := map[string][]*dayReader{}
	var dates []string
	for folder, files := range im.days {
		conv := im.byFolder[folder]
		if conv == nil {
			continue // a folder of no listed conversation
		}
		for _, f := range files {
			date := strings.TrimSuffix(path.Base(f.Name), ".json")
			if byDate[date] == nil {
				dates = append(dates, date)
			}
			byDate[date] = append(byDate[date], &dayReader{conv: conv, f: f})
		}
	}
	slices.Sort(dates)
	var batch []chat.ImportMessage
	var batchAt []ReportItem
	var pending []pendingReactions
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids, err := im.imp.AddMessages(batch)
		if err != nil {
			return err
		}
		for i, id := range ids {
			if id == 0 {
				im.skip("empty_message", batchAt[i])
			} else {
				im.res.Messages++
			}
		}
		if err := im.addReactions(ids, pending); err != nil {
			return err
		}
		// Drop the batch, whose messages are values, so that no batch's
		// worth of memory stays between batches.
		batch, batchAt, pending = nil, nil, nil
		im.progress("messages")
		return im.ctx.Err()
	}
	for _, date := range dates {
		readers := byDate[date]
		delete(byDate, date)
		h := make(dayHeap, 0, len(readers))
		err := func() error {
			defer func() {
				for _, d := range readers {
					d.close()
				}
			}()
			for _, d := range readers {
				if err := d.open(); err != nil {
					return err
				}
				if d.head != nil {
					h = append(h, d)
				}
			}
			heap.Init(&h)
			for h.Len() > 0 {
				d := h[0]
				im.at = ReportItem{Channel: d.conv.folder, TS: string(d.head.TS)}
				m, err := im.message(d.conv, d.head, d.at)
				if err != nil {
					return err
				}
				if m != nil {
					if len(d.head.Reactions) > 0 {
						pending = append(pending, pendingReactions{index: len(batch), reactions: d.head.Reactions, at: im.at})
					}
					batch = append(batch, *m)
					batchAt = append(batchAt, im.at)
				} else {
					im.skippedReactions(d.head.Reactions, im.at)
				}
				if err := d.next(); err != nil {
					return err
				}
				if d.head == nil {
					heap.Pop(&h)
				} else {
					heap.Fix(&h, 0)
				}
				if len(batch) >= im.opts.BatchSize {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return flush()
}

// message converts one Slack message, or returns nil for one that is not
// imported (recorded as skipped).
func (im *slackImport) message(conv *slackConv, sm *slackMessageJSON, at int64) (*chat.ImportMessage, error) {
	switch {
	case sm.Type != "" && sm.Type != "message":
		im.skipMessage("not_a_message", sm.Type)
		return nil, nil
	case eventSubtypes[sm.Subtype]:
		im.skipMessage("channel_event", sm.Subtype)
		return nil, nil
	}
	sender, err := im.sender(sm)
	if err != nil || sender == nil {
		return nil, err
	}
	text := sm.Text
	if sm.Subtype == "file_comment" && strings.TrimSpace(text) == "" && sm.Comment != nil {
		text = sm.Comment.Comment
	}
	content := im.conv.markdown(text)
	if meSubtypes[sm.Subtype] {
		content = "/me " + content
	}
	content = appendLines(content, im.attachments(sm.Attachments))
	if sm.Subtype != "file_comment" { // the comment's file belongs to an earlier message
		for _, f := range sm.files() {
			link, err := im.file(sender.id, f)
			if err != nil {
				return nil, err
			}
			content = appendLines(content, link)
		}
	}
	m := &chat.ImportMessage{SenderID: sender.id, Content: content, Sent: time.UnixMicro(at), Client: importClient}
	if sm.Edited != nil {
		if e, ok := parseSlackTS(string(sm.Edited.TS)); ok && e >= at {
			m.Edited = time.UnixMicro(e)
		}
	}
	threadAt, threaded := parseSlackTS(string(sm.ThreadTS))
	if conv.channelID != 0 {
		m.ChannelID = conv.channelID
		if threaded {
			key := threadKey{conv.folder, threadAt}
			topic, ok := im.threads[key]
			if !ok {
				topic = im.threadTopic(conv.channelID, sm, at)
				im.threads[key] = topic
			}
			m.Topic = topic
		}
		return m, nil
	}
	if threaded && threadAt != at {
		im.alter("direct_thread_flattened", im.at)
	}
	m.DirectUserIDs = conv.direct
	if !slices.Contains(conv.direct, sender.id) {
		ids := append(slices.Clone(conv.direct), sender.id)
		slices.Sort(ids)
		m.DirectUserIDs = ids
	}
	return m, nil
}

// skipMessage records the current message as skipped.
func (im *slackImport) skipMessage(kind, detail string) {
	item := im.at
	item.Detail = detail
	im.skip(kind, item)
}

// sender returns the sender of a message: the commenter of a
// file_comment, else its user (a placeholder when users.json does not
// list them), else the bot user of its integration, else the owner of
// its shared file (not of a commented one). It returns nil for a message without any (recorded as
// skipped).
func (im *slackImport) sender(sm *slackMessageJSON) (*slackUser, error) {
	id := sm.User
	if sm.Subtype == "file_comment" && sm.Comment != nil && sm.Comment.User != "" {
		id = sm.Comment.User
	}
	if id == "" && sm.BotID == "" && sm.Username == "" && sm.File != nil && sm.Subtype != "file_comment" {
		id = sm.File.User
	}
	if id != "" {
		return im.person(id, sm.UserProfile, im.at)
	}
	if sm.BotID == "" && sm.Username == "" {
		im.skipMessage("no_sender", sm.Subtype)
		return nil, nil
	}
	return im.bot(sm)
}

// bot returns the bot user that posts an integration's messages: the bot
// of users.json whose profile has the bot ID, else one created for the
// bot ID (or, without one, for the username), named after the username
// or the bot's profile.
func (im *slackImport) bot(sm *slackMessageJSON) (*slackUser, error) {
	key := sm.BotID
	if key == "" {
		key = "username:" + sm.Username
	}
	if u, ok := im.bots[key]; ok {
		return u, nil
	}
	names := []string{sm.Username}
	if sm.BotProfile != nil {
		names = append(names, sm.BotProfile.Name)
	}
	local := "slack-bot-" + strconv.Itoa(len(im.bots)+1)
	if sm.BotID != "" {
		local = "slack-" + sm.BotID + "-bot"
		names = append(names, "Slack bot "+sm.BotID)
	}
	id, name, err := im.imp.CreateUser(chat.ImportUser{FullNames: names, LocalPart: local, Bot: true, Active: true})
	if errors.Is(err, chat.ErrImportNoName) {
		id, name, err = im.imp.CreateUser(chat.ImportUser{FullNames: []string{"Slack bot"}, LocalPart: local, Bot: true, Active: true})
	}
	if err != nil {
		return nil, err
	}
	u := &slackUser{id: id, name: name}
	im.bots[key] = u
	im.res.Users++
	im.res.Bots++
	return u, nil
}

// attachments converts the legacy attachments of a message, which
// integrations post instead of text: pretext, title (linked), text and
// fields, else the fallback text. Link previews are left out: they
// repeat a link of the text.
func (im *slackImport) attachments(as []slackAttachmentJSON) string {
	var parts []string
	for _, a := range as {
		if a.FromURL != "" || a.OriginalURL != "" {
			continue
		}
		var lines []string
		add := func(s string) {
			if strings.TrimSpace(s) != "" {
				lines = append(lines, s)
			}
		}
		add(im.conv.markdown(a.Pretext))
		switch title := im.conv.markdown(a.Title); {
		case a.Title != "" && a.TitleLink != "":
			add("**[" + escapeLinkText(title) + "](" + a.TitleLink + ")**")
		case a.Title != "":
			add("**" + title + "**")
		}
		add(im.conv.markdown(a.Text))
		for _, f := range a.Fields {
			add("**" + im.conv.plain(f.Title) + "**: " + im.conv.markdown(f.Value))
		}
		if len(lines) == 0 {
			add(im.conv.markdown(a.Fallback))
		}
		parts = append(parts, lines...)
	}
	return strings.Join(parts, "\n")
}

// appendLines adds text on the lines after content.
func appendLines(content, text string) string {
	switch {
	case text == "":
		return content
	case strings.TrimSpace(content) == "":
		return text
	}
	return strings.TrimRight(content, "\n") + "\n" + text
}

// threadTopic names a thread's topic after the text of its first message
// (cut to the topic length limit), else after its first file, else after
// its time; a name that another thread of the channel has is numbered.
func (im *slackImport) threadTopic(channelID int64, sm *slackMessageJSON, at int64) string {
	text := im.conv.plain(sm.Text)
	if files := sm.files(); text == "" && len(files) > 0 {
		text = files[0].Name
	}
	topic, ok := im.imp.Topic(text)
	if !ok || topic == "" {
		topic = "Thread of " + time.UnixMicro(at).UTC().Format("2006-01-02 15:04:05")
	}
	taken := im.topics[channelID]
	if taken == nil {
		taken = map[string]bool{}
		im.topics[channelID] = taken
	}
	name := topic
	for n := 2; taken[strings.ToLower(name)]; n++ {
		suffix := " (" + strconv.Itoa(n) + ")"
		base := []rune(topic)
		if max := chat.MaxTopicLength - len(suffix); len(base) > max {
			base = base[:max]
		}
		name = strings.TrimSpace(string(base)) + suffix
	}
	taken[strings.ToLower(name)] = true
	if name != topic {
		item := im.at
		item.Detail = name
		im.alter("topic_renamed", item)
	}
	return name
}

// file imports a file that a message shares and returns the Markdown link
// to it: to the stored copy when the export carries the file, otherwise to
// its Slack URL (recorded as altered). Files without either are recorded
// as skipped.
func (im *slackImport) file(owner int64, f slackFileJSON) (string, error) {
	name := f.Name
	if name == "" {
		name = f.Title
	}
	if name == "" {
		name = f.ID
	}
	missing := func(kind string) (string, error) {
		item := im.at
		item.Detail = f.ID + " " + name
		if f.URLPrivate == "" || f.Mode == "tombstone" || f.Mode == "hidden_by_limit" {
			im.skip("deleted_file", item)
			return "", nil
		}
		im.alter(kind, item)
		return "[" + escapeLinkText(name) + "](" + f.URLPrivate + ")", nil
	}
	zf := im.uploads[f.ID]
	if zf == nil {
		return missing("missing_file")
	}
	rc, err := zf.Open()
	if err != nil {
		return "", malformed(zf.Name, "%v", err)
	}
	url, err := im.imp.StoreFile(owner, name, f.Mimetype, rc)
	rc.Close()
	if errors.Is(err, chat.ErrBlobTooLarge) {
		return missing("file_too_large")
	}
	if err != nil {
		return "", err
	}
	im.res.Files++
	return "[" + escapeLinkText(name) + "](" + url + ")", nil
}

// addReactions stores the reactions of a delivered batch, whose messages
// got ids. Slack names an emoji by name, with an optional skin tone
// ("+1::skin-tone-2") that is dropped; custom emoji aliases are followed.
// Reactions by unknown users, with emoji we do not have, or on messages
// that were not stored are recorded as skipped.
func (im *slackImport) addReactions(ids []int64, pending []pendingReactions) error {
	for _, p := range pending {
		id := ids[p.index]
		if id == 0 {
			im.skippedReactions(p.reactions, p.at)
			continue
		}
		for _, r := range p.reactions {
			name, _, _ := strings.Cut(r.Name, "::")
			name = im.emojiName(name)
			for _, su := range r.Users {
				item := p.at
				item.User, item.Detail = su, r.Name
				u, known := im.users[su]
				if !known {
					im.skip("reaction_unknown_user", item)
					continue
				}
				ok, err := im.imp.AddReaction(id, u.id, name)
				if errors.Is(err, chat.ErrReactionExists) {
					im.skip("reaction_duplicate", item)
					continue
				}
				if err != nil {
					return err
				}
				if !ok {
					im.skip("reaction_unknown_emoji", item)
					continue
				}
				im.res.Reactions++
			}
		}
	}
	return nil
}

// skippedReactions records the reactions of a message that was not
// imported.
func (im *slackImport) skippedReactions(rs []slackReactionJSON, at ReportItem) {
	for _, r := range rs {
		for _, su := range r.Users {
			item := at
			item.User, item.Detail = su, r.Name
			im.skip("reaction_of_skipped_message", item)
		}
	}
}

// emojiName follows the custom emoji aliases of a Slack emoji name.
func (im *slackImport) emojiName(name string) string {
	for range 8 { // aliases of aliases, without looping forever
		target, ok := im.emoji[name]
		if !ok {
			break
		}
		name = target
	}
	return name
}
