package slackimport

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/teamchat/chat"
)

// Options are the settings of Import.
type Options struct {
	// Name is the organization's name; empty means "Imported from Slack".
	Name string
	// Host through which clients reach the organization; "localhost" when
	// empty. It must not be another organization's.
	Host string
	// URL is the canonical URL; "http://" + Host when empty.
	URL string
	// Owner, when not empty, is the email address of the user of
	// users.json who becomes the organization's owner, whatever the
	// export's roles. An export without an active owner or administrator
	// needs it.
	Owner string
	// BatchSize is the number of messages written per batch; zero means
	// 1000.
	BatchSize int
	// Progress, when not nil, is called after every batch and at the end
	// of each phase with the running counts.
	Progress func(Progress)
}

// Progress is a snapshot of a running import.
type Progress struct {
	// Phase is "users", "channels", "messages" or "done".
	Phase    string
	Users    int
	Channels int
	Messages int
	Elapsed  time.Duration
}

// Result describes an imported organization. Its JSON form is what
// `chatd import slack` prints.
type Result struct {
	RealmID  int64  `json:"realm_id"`
	RealmURL string `json:"realm_url"`
	// Users counts the accounts created: those of users.json, the bots of
	// integrations and the placeholders of users missing from users.json.
	Users int `json:"users"`
	Bots  int `json:"bots"`
	// Channels counts public and private channels; DirectConversations
	// the one-to-one and group direct conversations.
	Channels            int `json:"channels"`
	DirectConversations int `json:"direct_conversations"`
	Messages            int `json:"messages"`
	Reactions           int `json:"reactions"`
	CustomEmoji         int `json:"custom_emoji"`
	// Files counts the files stored from the export.
	Files int `json:"files"`
	// Skipped counts what was not imported, by kind ("channel_event",
	// "reaction_unknown_emoji", ...), each with its reason; Altered what
	// was imported otherwise than the export has it ("missing_file",
	// "placeholder_user", ...). Kinds that did not occur are absent.
	Skipped map[string]KindCount `json:"skipped"`
	Altered map[string]KindCount `json:"altered"`
	// Report lists every skipped or altered item, in the order met; its
	// counts by kind are Skipped and Altered.
	Report []ReportItem `json:"-"`
}

// importClient is the client name of imported messages.
const importClient = "Slack import"

// uploadsDir is the folder of the export that holds files, one folder per
// Slack file ID ("__uploads/F0123/name.png"), as export tools that keep
// files write them.
const uploadsDir = "__uploads/"

// attachmentsDir is the folder, inside a conversation's folder, where
// slackdump's standard layout keeps the files shared there, named
// "{file ID}-{name}".
const attachmentsDir = "attachments"

// dayFile matches the name of a day file of a conversation folder; other
// JSON files there (canvases, for example) hold no messages.
var dayFile = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.json$`)

// Import creates an organization of svc from a Slack workspace export, the
// zip archive r of size bytes: its users (as imported stubs, until their
// first login), bots, public and private channels with their members,
// direct conversations, messages with threads as topics, edits,
// reactions, custom emoji (from emoji.json when present), mentions, links
// and the files the archive carries. Integrations' posts get bot users,
// and users missing from users.json deactivated placeholders. What is not
// imported, or imported otherwise than the export has it, is counted by
// kind in the result and listed in Result.Report. It is a provisioning
// operation for the server's operator, over chat.Service.Import.
//
// The archive is read one JSON element at a time and messages are written
// in batches of opts.BatchSize, all in one transaction, so a failed import
// leaves nothing behind (files already stored are deleted).
//
// Errors: BAD_REQUEST naming the file and the reason for an archive that
// is not a Slack export or has a malformed file, for an export without an
// active owner or administrator when opts.Owner is empty, for an
// opts.Owner that no active user has, an invalid name or host, or a host
// already taken; internal errors of the store or blob store.
func Import(ctx context.Context, svc *chat.Service, r io.ReaderAt, size int64, opts Options) (Result, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Result{}, badRequest("Not a zip archive: %v", err)
	}
	im := &slackImport{ctx: ctx, opts: opts, start: time.Now()}
	if im.opts.BatchSize <= 0 {
		im.opts.BatchSize = 1000
	}
	if strings.TrimSpace(im.opts.Name) == "" {
		im.opts.Name = "Imported from Slack"
	}
	if err := im.index(zr); err != nil {
		return Result{}, err
	}
	org := chat.ImportOrganization{Name: im.opts.Name, Host: im.opts.Host, URL: im.opts.URL}
	realm, err := svc.Import(ctx, org, func(imp *chat.Importer) error {
		im.reset(imp)
		return im.run()
	})
	if err != nil {
		return Result{}, err
	}
	im.res.RealmID, im.res.RealmURL = realm.ID, realm.URL
	im.progress("done")
	return im.res, nil
}

// badRequest is a BAD_REQUEST error of the import.
func badRequest(format string, args ...any) *chat.Error {
	return &chat.Error{Code: chat.CodeBadRequest, Msg: fmt.Sprintf(format, args...)}
}

// slackImport is the state of one import.
type slackImport struct {
	imp   *chat.Importer
	ctx   context.Context
	opts  Options
	start time.Time
	res   Result

	// files are the archive's top-level JSON files by name; days the day
	// files of each folder, sorted by name (which is the date); uploads
	// the files the archive carries, by Slack file ID.
	files   map[string]*zip.File
	days    map[string][]*zip.File
	uploads map[string]*zip.File
	// other are the JSON files of conversation folders that are not day
	// files.
	other []*zip.File

	users map[string]*slackUser
	// channels are the conversations by Slack ID; byFolder by the folder
	// of their day files.
	channels map[string]*slackConv
	byFolder map[string]*slackConv
	// threads names the topic of each thread once its first message is
	// seen.
	threads map[threadKey]string
	// emoji maps custom emoji aliases to the names they stand for.
	emoji map[string]string
	conv  slackConverter
	// bots are the users of integrations' posts, by bot ID (or
	// "username:" and the name for posts without one); topics the thread
	// topics taken in each channel, lowercased.
	bots   map[string]*slackUser
	topics map[int64]map[string]bool
	// owner is the user who creates channels the export gives no creator.
	owner int64
	// at is the message being converted, for the report.
	at ReportItem
}

// slackUser is an imported user.
type slackUser struct {
	id   int64
	name string
}

// slackConv is an imported conversation: a channel, or the participants of
// a direct conversation.
type slackConv struct {
	folder    string
	channelID int64
	name      string
	direct    []int64
}

// threadKey names a thread: its folder and the time of its first message
// in microseconds (thread_ts may be written as a string or as a number).
type threadKey struct {
	folder string
	ts     int64
}

// reset starts an attempt of the import over.
func (im *slackImport) reset(imp *chat.Importer) {
	im.imp, im.res = imp, Result{Skipped: map[string]KindCount{}, Altered: map[string]KindCount{}}
	im.bots, im.topics = map[string]*slackUser{}, map[int64]map[string]bool{}
	im.users, im.channels, im.byFolder = map[string]*slackUser{}, map[string]*slackConv{}, map[string]*slackConv{}
	im.threads, im.emoji = map[threadKey]string{}, map[string]string{}
}

func (im *slackImport) user(id string) (*slackUser, bool) {
	u, ok := im.users[id]
	return u, ok
}

func (im *slackImport) channelName(id string) (string, bool) {
	c, ok := im.channels[id]
	if !ok || c.channelID == 0 {
		return "", false
	}
	return c.name, true
}

func (im *slackImport) unresolved(ref string) {
	item := im.at
	item.Detail = ref
	im.alter("unknown_mention", item)
}

// person returns the user of a Slack user ID, creating a deactivated
// placeholder for an ID that users.json does not list (named after the
// profile that messages carry, when there is one). where says where the
// ID was met, for the report.
func (im *slackImport) person(slackID string, profile *slackProfileJSON, where ReportItem) (*slackUser, error) {
	if u, ok := im.users[slackID]; ok {
		return u, nil
	}
	names := []string{}
	if profile != nil {
		names = append(names, profile.RealName, profile.DisplayName, profile.Name)
	}
	names = append(names, "Slack user "+slackID)
	id, name, err := im.imp.CreateUser(chat.ImportUser{FullNames: names, LocalPart: "slack-" + slackID, Role: chat.RoleMember})
	if errors.Is(err, chat.ErrImportEmailTaken) {
		id, name, err = im.imp.CreateUser(chat.ImportUser{FullNames: names, LocalPart: "slack-placeholder-" + slackID,
			Role: chat.RoleMember})
	}
	if err != nil {
		return nil, err
	}
	u := &slackUser{id: id, name: name}
	im.users[slackID] = u
	im.res.Users++
	where.User = slackID
	where.Detail = name
	im.alter("placeholder_user", where)
	return u, nil
}

// slackProfileJSON is the sender's profile that messages carry.
type slackProfileJSON struct {
	RealName    string `json:"real_name"`
	DisplayName string `json:"display_name"`
	Name        string `json:"name"`
}

// index lists the archive's files.
func (im *slackImport) index(zr *zip.Reader) error {
	im.files, im.days, im.uploads = map[string]*zip.File{}, map[string][]*zip.File{}, map[string]*zip.File{}
	prefix := slackExportRoot(zr)
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || name == "" || strings.HasSuffix(name, "/") {
			continue
		}
		if rest, ok := strings.CutPrefix(name, uploadsDir); ok {
			if id, _, ok := strings.Cut(rest, "/"); ok && id != "" {
				im.uploads[id] = f
			}
			continue
		}
		dir, file := path.Split(name)
		if folder, ok := strings.CutSuffix(dir, "/"+attachmentsDir+"/"); ok && !strings.Contains(folder, "/") {
			// slackdump's standard layout: FOLDER/attachments/F0123-name.png.
			if id, _, ok := strings.Cut(file, "-"); ok && id != "" && im.uploads[id] == nil {
				im.uploads[id] = f
			}
			continue
		}
		switch {
		case dir == "" && strings.HasSuffix(file, ".json"):
			im.files[file] = f
		case dir != "" && strings.Count(dir, "/") == 1 && strings.HasSuffix(file, ".json"):
			folder := strings.TrimSuffix(dir, "/")
			if dayFile.MatchString(file) {
				im.days[folder] = append(im.days[folder], f)
			} else {
				im.other = append(im.other, f)
			}
		}
	}
	if im.files["users.json"] == nil || (im.files["channels.json"] == nil && im.files["groups.json"] == nil &&
		im.files["dms.json"] == nil && im.files["mpims.json"] == nil) {
		return badRequest("Not a Slack export: users.json and channels.json (or groups.json, dms.json, mpims.json) are required")
	}
	for _, list := range im.days {
		slices.SortFunc(list, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	}
	return nil
}

// slackExportRoot gives the folder that holds the export inside the zip:
// "" when users.json sits at the top, or "NAME/" when every export file
// sits in one top-level folder (what compressing an extracted export gives).
func slackExportRoot(zr *zip.Reader) string {
	root := ""
	for _, f := range zr.File {
		if f.Name == "users.json" {
			return ""
		}
		if dir, ok := strings.CutSuffix(f.Name, "/users.json"); ok && dir != "" && !strings.Contains(dir, "/") {
			root = dir + "/"
		}
	}
	return root
}

// run imports everything inside the transaction.
func (im *slackImport) run() error {
	im.conv = slackConverter{refs: im}
	owner, err := im.importUsers()
	if err != nil {
		return err
	}
	im.owner = owner
	for _, f := range im.other {
		im.skip("unread_file", ReportItem{Channel: path.Base(path.Dir(f.Name)), Detail: path.Base(f.Name)})
	}
	im.progress("users")
	if err := im.importEmoji(); err != nil {
		return err
	}
	if err := im.importChannels(owner); err != nil {
		return err
	}
	if err := im.importDirect(); err != nil {
		return err
	}
	if err := im.importFolders(); err != nil {
		return err
	}
	im.progress("channels")
	return im.importMessages()
}

func (im *slackImport) progress(phase string) {
	if im.opts.Progress != nil {
		im.opts.Progress(Progress{Phase: phase, Users: im.res.Users, Channels: im.res.Channels,
			Messages: im.res.Messages, Elapsed: time.Since(im.start)})
	}
}

// malformed reports a file the import cannot read.
func malformed(name string, format string, args ...any) *chat.Error {
	return badRequest("%s: %s", name, fmt.Sprintf(format, args...))
}

// eachElement streams the JSON array of the archive's file f, decoding one
// element at a time into a new value for fn.
func eachElement[T any](ctx context.Context, f *zip.File, fn func(*T) error) error {
	rc, err := f.Open()
	if err != nil {
		return malformed(f.Name, "%v", err)
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	tok, err := dec.Token()
	if err == nil && tok == nil {
		return nil // null: an absent list
	}
	if err != nil || tok != json.Delim('[') {
		return malformed(f.Name, "not a JSON array")
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return malformed(f.Name, "%v", err)
		}
		if err := fn(&v); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return malformed(f.Name, "%v", err)
	}
	return nil
}

// slackUserJSON is an element of users.json.
type slackUserJSON struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	RealName          string `json:"real_name"`
	Deleted           bool   `json:"deleted"`
	IsBot             bool   `json:"is_bot"`
	IsAdmin           bool   `json:"is_admin"`
	IsOwner           bool   `json:"is_owner"`
	IsPrimaryOwner    bool   `json:"is_primary_owner"`
	IsRestricted      bool   `json:"is_restricted"`
	IsUltraRestricted bool   `json:"is_ultra_restricted"`
	TZ                string `json:"tz"`
	Profile           struct {
		RealName string `json:"real_name"`
		Email    string `json:"email"`
		// BotID is the ID that the bot's posts carry as bot_id.
		BotID string `json:"bot_id"`
	} `json:"profile"`
}

// importUsers creates the accounts of users.json and returns the ID of an
// owner: the user that opts.Owner names, else the export's primary owner,
// else its first owner or administrator, who becomes an owner.
func (im *slackImport) importUsers() (int64, error) {
	const file = "users.json"
	var owner, firstAdmin, named int64
	wanted := strings.ToLower(strings.TrimSpace(im.opts.Owner))
	err := eachElement(im.ctx, im.files[file], func(su *slackUserJSON) error {
		if su.ID == "" {
			return malformed(file, "a user has no id")
		}
		if _, dup := im.users[su.ID]; dup {
			return malformed(file, "user %s is listed twice", su.ID)
		}
		u := chat.ImportUser{FullNames: []string{su.Profile.RealName, su.RealName, su.Name},
			Email: su.Profile.Email, LocalPart: "slack-" + su.ID, Role: chat.RoleMember,
			Bot: su.IsBot, Active: !su.Deleted, Timezone: su.TZ}
		switch {
		case su.IsBot:
			u.Email, u.LocalPart = "", su.ID+"-bot"
		case su.IsPrimaryOwner || su.IsOwner:
			u.Role = chat.RoleOwner
		case su.IsAdmin:
			u.Role = chat.RoleAdmin
		case su.IsRestricted || su.IsUltraRestricted:
			u.Role = chat.RoleGuest
		}
		id, name, err := im.imp.CreateUser(u)
		switch {
		case errors.Is(err, chat.ErrImportNoName):
			return malformed(file, "user %s has no valid name", su.ID)
		case errors.Is(err, chat.ErrImportEmailTaken):
			return malformed(file, "user %s: email address %s is used twice", su.ID, su.Profile.Email)
		case err != nil:
			return err
		}
		im.users[su.ID] = &slackUser{id: id, name: name}
		im.res.Users++
		if su.IsBot {
			im.res.Bots++
			if su.Profile.BotID != "" {
				im.bots[su.Profile.BotID] = im.users[su.ID]
			}
		}
		if !su.Deleted && !su.IsBot && wanted != "" && strings.ToLower(strings.TrimSpace(su.Profile.Email)) == wanted {
			named = id
		}
		if !su.Deleted && !su.IsBot {
			switch {
			case su.IsPrimaryOwner || (owner == 0 && su.IsOwner):
				owner = id
			case firstAdmin == 0 && su.IsAdmin:
				firstAdmin = id
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	switch {
	case wanted != "" && named == 0:
		return 0, badRequest("No active user of users.json has the address %s to become owner", im.opts.Owner)
	case named != 0:
		owner, firstAdmin = 0, named
	case owner == 0 && firstAdmin == 0:
		return 0, malformed(file, "no active owner or administrator; name the user who becomes owner by "+
			"their email address with --owner EMAIL (Options.Owner)")
	}
	if owner == 0 {
		if err := im.imp.SetRole(firstAdmin, chat.RoleOwner); err != nil {
			return 0, err
		}
		owner = firstAdmin
	}
	return owner, nil
}

// importEmoji reads emoji.json, when the export has it: an object mapping
// each custom emoji name to its image URL, or to "alias:name" for an
// alias. Every custom name with a valid name becomes a custom emoji record.
func (im *slackImport) importEmoji() error {
	const file = "emoji.json"
	f := im.files[file]
	if f == nil {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return malformed(file, "%v", err)
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return malformed(file, "not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return malformed(file, "%v", err)
		}
		name, _ := tok.(string)
		var value string
		if err := dec.Decode(&value); err != nil {
			return malformed(file, "emoji %q: %v", name, err)
		}
		if target, ok := strings.CutPrefix(value, "alias:"); ok {
			im.emoji[name] = target
			continue
		}
		if _, err := im.imp.CreateEmoji(name); errors.Is(err, chat.ErrInvalidEmojiName) {
			im.skip("invalid_custom_emoji", ReportItem{Detail: name})
			continue
		} else if err != nil {
			return err
		}
		im.res.CustomEmoji++
	}
	return nil
}

// slackChannelJSON is an element of channels.json or groups.json.
type slackChannelJSON struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Created    slackStamp `json:"created"`
	Creator    string     `json:"creator"`
	IsArchived bool       `json:"is_archived"`
	IsGeneral  bool       `json:"is_general"`
	Members    []string   `json:"members"`
	Topic      struct {
		Value string `json:"value"`
	} `json:"topic"`
	Purpose struct {
		Value string `json:"value"`
	} `json:"purpose"`
}

// importChannels creates the public (channels.json) and private
// (groups.json) channels and subscribes their members.
func (im *slackImport) importChannels(owner int64) error {
	for _, file := range []string{"channels.json", "groups.json"} {
		f := im.files[file]
		if f == nil {
			continue
		}
		private := file == "groups.json"
		err := eachElement(im.ctx, f, func(sc *slackChannelJSON) error {
			if sc.ID == "" || sc.Name == "" {
				return malformed(file, "a channel has no id or name")
			}
			if _, dup := im.channels[sc.ID]; dup {
				return malformed(file, "channel %s is listed twice", sc.ID)
			}
			c := chat.ImportChannel{Name: sc.Name, CreatorID: owner, Private: private,
				Default: sc.IsGeneral, Archived: sc.IsArchived}
			if u, ok := im.users[sc.Creator]; ok {
				c.CreatorID = u.id
			}
			if sec := sc.Created.seconds(); sec > 0 {
				c.Created = time.Unix(sec, 0)
			}
			c.Description = sc.Purpose.Value
			if c.Description == "" {
				c.Description = sc.Topic.Value
			}
			c.Description = im.conv.plain(c.Description)
			for _, m := range sc.Members {
				u, err := im.person(m, nil, ReportItem{Channel: sc.Name})
				if err != nil {
					return err
				}
				c.Members = append(c.Members, u.id)
			}
			if len(c.Members) == 0 {
				// Without members (a list left out), nobody could read
				// a private channel: its creator is subscribed.
				c.Members = []int64{c.CreatorID}
			}
			id, name, err := im.imp.CreateChannel(c)
			if err != nil {
				return err
			}
			im.channels[sc.ID] = &slackConv{folder: sc.Name, channelID: id, name: name}
			im.res.Channels++
			return nil
		})
		if err != nil {
			return err
		}
	}
	im.byFolder = map[string]*slackConv{}
	for _, c := range im.channels {
		im.byFolder[c.folder] = c
	}
	return nil
}

// slackDirectJSON is an element of dms.json or mpims.json.
type slackDirectJSON struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// importDirect reads the direct conversations: one-to-one (dms.json, whose
// folders are named by ID) and group ones (mpims.json, by name).
func (im *slackImport) importDirect() error {
	for _, file := range []string{"dms.json", "mpims.json"} {
		f := im.files[file]
		if f == nil {
			continue
		}
		err := eachElement(im.ctx, f, func(d *slackDirectJSON) error {
			if d.ID == "" {
				return malformed(file, "a conversation has no id")
			}
			folder := d.ID
			if file == "mpims.json" && d.Name != "" {
				folder = d.Name
			}
			var ids []int64
			for _, m := range d.Members {
				u, err := im.person(m, nil, ReportItem{Channel: folder})
				if err != nil {
					return err
				}
				ids = append(ids, u.id)
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			c := &slackConv{folder: folder, direct: ids}
			im.byFolder[folder] = c
			im.channels[d.ID] = c
			im.res.DirectConversations++
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// importFolders creates a private channel for each conversation folder
// that no list names (its conversation's entry was left out of the
// export's lists), with the users who wrote in it as members: a folder
// may hold a private conversation, so its messages stay among those who
// saw them. A folder named by a listed channel's ID is that channel.
func (im *slackImport) importFolders() error {
	var folders []string
	for folder := range im.days {
		if im.byFolder[folder] != nil {
			continue
		}
		if c := im.channels[folder]; c != nil {
			im.byFolder[folder] = c
			continue
		}
		folders = append(folders, folder)
	}
	slices.Sort(folders)
	for _, folder := range folders {
		c := chat.ImportChannel{Name: folder, CreatorID: im.owner, Private: true}
		seen := map[string]bool{}
		for _, f := range im.days[folder] {
			err := eachElement(im.ctx, f, func(sm *slackMessageJSON) error {
				if sm.User == "" || seen[sm.User] {
					return nil
				}
				seen[sm.User] = true
				u, err := im.person(sm.User, sm.UserProfile, ReportItem{Channel: folder, TS: string(sm.TS)})
				if err != nil {
					return err
				}
				c.Members = append(c.Members, u.id)
				return nil
			})
			if err != nil {
				return err
			}
		}
		id, name, err := im.imp.CreateChannel(c)
		if err != nil {
			return err
		}
		im.byFolder[folder] = &slackConv{folder: folder, channelID: id, name: name}
		im.res.Channels++
		im.alter("unlisted_folder", ReportItem{Channel: folder, Detail: name})
	}
	return nil
}
