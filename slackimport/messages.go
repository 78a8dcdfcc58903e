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
	Reactions []struct {
		Name  string   `json:"name"`
		Users []string `json:"users"`
	} `json:"reactions"`
	Files []slackFileJSON `json:"files"`
	// File is the one file of a share in exports before 2019.
	File *slackFileJSON `json:"file"`
}

// files lists the files a message shares, in both layouts.
func (sm *slackMessageJSON) files() []slackFileJSON {
	if sm.File == nil || sm.File.ID == "" || slices.ContainsFunc(sm.Files, func(f slackFileJSON) bool { return f.ID == sm.File.ID }) {
		return sm.Files
	}
	return append(slices.Clone(sm.Files), *sm.File)
}

// slackFileJSON is a file that a message shares.
type slackFileJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Title      string `json:"title"`
	Mimetype   string `json:"mimetype"`
	URLPrivate string `json:"url_private"`
	Mode       string `json:"mode"`
}

// importedSubtypes are the message subtypes that carry what people
// wrote; the others (joins, leaves, topic and name changes, pins) are
// channel events that the channel's own state already shows.
var importedSubtypes = map[string]bool{
	"": true, "thread_broadcast": true, "reply_broadcast": true,
	"file_share": true, "me_message": true, "bot_message": true,
}

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
	reactions []struct {
		Name  string   `json:"name"`
		Users []string `json:"users"`
	}
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
	var pending []pendingReactions
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids, err := im.imp.AddMessages(batch)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if id == 0 {
				im.res.SkippedMessages++ // no content once trimmed
			} else {
				im.res.Messages++
			}
		}
		if err := im.addReactions(ids, pending); err != nil {
			return err
		}
		// Drop the batch, whose messages are values, so that no batch's
		// worth of memory stays between batches.
		batch, pending = nil, nil
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
				m, err := im.message(d.conv, d.head, d.at)
				if err != nil {
					return err
				}
				if m != nil {
					if len(d.head.Reactions) > 0 {
						pending = append(pending, pendingReactions{index: len(batch), reactions: d.head.Reactions})
					}
					batch = append(batch, *m)
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
// imported (counted as skipped).
func (im *slackImport) message(conv *slackConv, sm *slackMessageJSON, at int64) (*chat.ImportMessage, error) {
	sender, ok := im.users[sm.User]
	if !ok || !importedSubtypes[sm.Subtype] || (sm.Type != "" && sm.Type != "message") {
		im.res.SkippedMessages++
		return nil, nil
	}
	content := im.conv.markdown(sm.Text)
	if sm.Subtype == "me_message" {
		content = "/me " + content
	}
	for _, f := range sm.files() {
		link, err := im.file(sender.id, f)
		if err != nil {
			return nil, err
		}
		if link != "" {
			content = strings.TrimRight(content, "\n") + "\n" + link
		}
	}
	m := &chat.ImportMessage{SenderID: sender.id, Content: content, Sent: time.UnixMicro(at), Client: importClient}
	if sm.Edited != nil {
		if e, ok := parseSlackTS(string(sm.Edited.TS)); ok && e >= at {
			m.Edited = time.UnixMicro(e)
		}
	}
	if conv.channelID != 0 {
		m.ChannelID = conv.channelID
		if threadAt, ok := parseSlackTS(string(sm.ThreadTS)); ok {
			key := threadKey{conv.folder, threadAt}
			topic, ok := im.threads[key]
			if !ok {
				topic = im.threadTopic(sm, at)
				im.threads[key] = topic
			}
			m.Topic = topic
		}
		return m, nil
	}
	m.DirectUserIDs = conv.direct
	if !slices.Contains(conv.direct, sender.id) {
		ids := append(slices.Clone(conv.direct), sender.id)
		slices.Sort(ids)
		m.DirectUserIDs = ids
	}
	return m, nil
}

// threadTopic names a thread's topic after the text of its first message
// (cut to the topic length limit), else after its first file, else after
// its time.
func (im *slackImport) threadTopic(sm *slackMessageJSON, at int64) string {
	text := im.conv.plain(sm.Text)
	if files := sm.files(); text == "" && len(files) > 0 {
		text = files[0].Name
	}
	if topic, ok := im.imp.Topic(text); ok && topic != "" {
		return topic
	}
	return "Thread of " + time.UnixMicro(at).UTC().Format("2006-01-02 15:04:05")
}

// file imports a file that a message shares and returns the Markdown link
// to it: to the stored copy when the export carries the file, otherwise to
// its Slack URL (counted as missing). Files without either are dropped.
func (im *slackImport) file(owner int64, f slackFileJSON) (string, error) {
	name := f.Name
	if name == "" {
		name = f.Title
	}
	if name == "" {
		name = f.ID
	}
	missing := func() (string, error) {
		im.res.MissingFiles++
		if f.URLPrivate == "" || f.Mode == "tombstone" {
			return "", nil
		}
		return "[" + escapeLinkText(name) + "](" + f.URLPrivate + ")", nil
	}
	zf := im.uploads[f.ID]
	if zf == nil {
		return missing()
	}
	rc, err := zf.Open()
	if err != nil {
		return "", malformed(zf.Name, "%v", err)
	}
	url, err := im.imp.StoreFile(owner, name, f.Mimetype, rc)
	rc.Close()
	if errors.Is(err, chat.ErrBlobTooLarge) {
		return missing()
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
// Reactions by unknown users or with emoji we do not have are dropped and
// counted.
func (im *slackImport) addReactions(ids []int64, pending []pendingReactions) error {
	for _, p := range pending {
		id := ids[p.index]
		if id == 0 {
			continue
		}
		for _, r := range p.reactions {
			name, _, _ := strings.Cut(r.Name, "::")
			name = im.emojiName(name)
			for _, su := range r.Users {
				u, known := im.users[su]
				if !known {
					im.res.DroppedReactions++
					continue
				}
				ok, err := im.imp.AddReaction(id, u.id, name)
				if errors.Is(err, chat.ErrReactionExists) {
					continue // two names of one emoji
				}
				if err != nil {
					return err
				}
				if !ok {
					im.res.DroppedReactions++
					continue
				}
				im.res.Reactions++
			}
		}
	}
	return nil
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
