package chat

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// SlackImportOptions are the settings of ImportSlack.
type SlackImportOptions struct {
	// Name is the organization's name; empty means "Imported from Slack".
	Name string
	// Host through which clients reach the organization; "localhost" when
	// empty. It must not be another organization's.
	Host string
	// URL is the canonical URL; "http://" + Host when empty.
	URL string
	// BatchSize is the number of messages written per batch; zero means
	// 1000.
	BatchSize int
	// Progress, when not nil, is called after every batch and at the end
	// of each phase with the running counts.
	Progress func(ImportProgress)
}

// ImportProgress is a snapshot of a running import.
type ImportProgress struct {
	// Phase is "users", "channels", "messages" or "done".
	Phase    string
	Users    int
	Channels int
	Messages int
	Elapsed  time.Duration
}

// ImportResult describes an imported organization. Its JSON form is what
// `chatd import slack` prints.
type ImportResult struct {
	RealmID  int64  `json:"realm_id"`
	RealmURL string `json:"realm_url"`
	// Users counts the accounts created, bots included.
	Users int `json:"users"`
	Bots  int `json:"bots"`
	// Channels counts public and private channels; DirectConversations
	// the one-to-one and group direct conversations.
	Channels            int `json:"channels"`
	DirectConversations int `json:"direct_conversations"`
	Messages            int `json:"messages"`
	Reactions           int `json:"reactions"`
	CustomEmoji         int `json:"custom_emoji"`
	// Files counts the files stored from the export; MissingFiles those
	// that messages reference but the export does not carry (their links
	// are kept).
	Files        int `json:"files"`
	MissingFiles int `json:"missing_files"`
	// SkippedMessages counts channel events (joins, topic changes, ...)
	// and messages without a known sender or content.
	SkippedMessages int `json:"skipped_messages"`
	// DroppedReactions counts reactions whose emoji or user is unknown.
	DroppedReactions int `json:"dropped_reactions"`
}

// slackImportClient is the client name of imported messages.
const slackImportClient = "Slack import"

// slackUploadsDir is the folder of the export that holds files, one
// folder per Slack file ID ("__uploads/F0123/name.png"), as export tools
// that keep files write them.
const slackUploadsDir = "__uploads/"

// ImportSlack creates an organization from a Slack workspace export, the
// zip archive r of size bytes: its users (as imported stubs, until their
// first login), bots, public and private channels with their members,
// direct conversations, messages with threads as topics, edits,
// reactions, custom emoji (from emoji.json when present), mentions, links
// and the files the archive carries. It is a provisioning operation for
// the server's operator and checks no actor.
//
// The archive is read one JSON element at a time and messages are written
// in batches of opts.BatchSize, all in one transaction, so a failed import
// leaves nothing behind (files already stored are deleted).
//
// Errors: BAD_REQUEST naming the file and the reason for an archive that
// is not a Slack export or has a malformed file, an invalid name or host,
// or a host already taken; internal errors of the store or blob store.
func (s *Service) ImportSlack(ctx context.Context, r io.ReaderAt, size int64, opts SlackImportOptions) (ImportResult, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return ImportResult{}, errorf("Not a zip archive: %v", err)
	}
	im := &slackImport{s: s, ctx: ctx, opts: opts, start: time.Now()}
	if im.opts.BatchSize <= 0 {
		im.opts.BatchSize = 1000
	}
	if err := im.index(zr); err != nil {
		return ImportResult{}, err
	}
	if err := im.checkOrg(); err != nil {
		return ImportResult{}, err
	}
	err = s.update(ctx, noActor, func(tx storage.Tx) error {
		// A backend may run fn again after a conflict (PostgreSQL's
		// serialization failures): start over, without the files of the
		// attempt that was rolled back.
		im.deleteBlobs()
		im.reset(tx)
		return im.run()
	})
	if err != nil {
		im.deleteBlobs()
		return ImportResult{}, err
	}
	im.progress("done")
	return im.res, nil
}

// slackImport is the state of one import.
type slackImport struct {
	s     *Service
	ctx   context.Context
	tx    storage.Tx
	opts  SlackImportOptions
	start time.Time
	realm Realm
	res   ImportResult

	// files are the archive's top-level JSON files by name; days the day
	// files of each folder, sorted by name (which is the date); uploads
	// the files the archive carries, by Slack file ID.
	files   map[string]*zip.File
	days    map[string][]*zip.File
	uploads map[string]*zip.File

	users map[string]*slackUser
	// channels are the conversations by Slack ID; byFolder by the folder
	// of their day files.
	channels map[string]*slackConv
	byFolder map[string]*slackConv
	// threads names the topic of each thread once its first message is
	// seen.
	threads map[threadKey]string
	// emoji maps custom emoji aliases to the names they stand for;
	// realmEmoji the imported custom emoji to their IDs.
	emoji      map[string]string
	realmEmoji map[string]int64
	// blobs are the keys of the files stored so far, deleted on failure.
	blobs []string
	conv  slackConverter
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

type threadKey struct{ folder, ts string }

// reset clears what an attempt of the import wrote down.
func (im *slackImport) reset(tx storage.Tx) {
	im.tx, im.res, im.realm = tx, ImportResult{}, Realm{}
	im.users, im.channels, im.byFolder = map[string]*slackUser{}, map[string]*slackConv{}, map[string]*slackConv{}
	im.threads, im.emoji, im.realmEmoji = map[threadKey]string{}, map[string]string{}, map[string]int64{}
}

// deleteBlobs deletes the files stored so far, for an import that failed
// or starts over.
func (im *slackImport) deleteBlobs() {
	for _, key := range im.blobs {
		im.s.deleteBlob(im.ctx, key)
	}
	im.blobs = nil
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

// index lists the archive's files.
func (im *slackImport) index(zr *zip.Reader) error {
	im.files, im.days, im.uploads = map[string]*zip.File{}, map[string][]*zip.File{}, map[string]*zip.File{}
	prefix := slackExportRoot(zr)
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || name == "" || strings.HasSuffix(name, "/") {
			continue
		}
		if rest, ok := strings.CutPrefix(name, slackUploadsDir); ok {
			if id, _, ok := strings.Cut(rest, "/"); ok && id != "" {
				im.uploads[id] = f
			}
			continue
		}
		dir, file := path.Split(name)
		switch {
		case dir == "" && strings.HasSuffix(file, ".json"):
			im.files[file] = f
		case dir != "" && strings.Count(dir, "/") == 1 && strings.HasSuffix(file, ".json"):
			folder := strings.TrimSuffix(dir, "/")
			im.days[folder] = append(im.days[folder], f)
		}
	}
	if im.files["users.json"] == nil || im.files["channels.json"] == nil {
		return errorf("Not a Slack export: users.json and channels.json are required")
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

// checkOrg validates the organization's settings before any write.
func (im *slackImport) checkOrg() error {
	o := &im.opts
	o.Name = strings.TrimSpace(o.Name)
	if o.Name == "" {
		o.Name = "Imported from Slack"
	}
	if utf8.RuneCountInString(o.Name) > maxRealmNameLength {
		return errorf("Organization name is too long (limit: %d characters)", maxRealmNameLength)
	}
	if o.Host == "" {
		o.Host = "localhost"
	}
	o.Host = strings.ToLower(o.Host)
	if !validHost(o.Host) {
		return errorf("Invalid host: %s", o.Host)
	}
	if o.URL == "" {
		o.URL = "http://" + o.Host
	}
	o.URL = strings.TrimRight(o.URL, "/")
	return nil
}

// run imports everything inside the transaction.
func (im *slackImport) run() error {
	im.conv = slackConverter{refs: im}
	im.realm = Realm{Name: im.opts.Name, Host: im.opts.Host, URL: im.opts.URL, DateCreated: im.s.now(),
		DefaultEmailVisibility: EmailVisibleEveryone, RealmSettings: DefaultRealmSettings()}
	if err := im.tx.CreateRealm(&im.realm); errors.Is(err, storage.ErrExists) {
		return errorf("An organization with host %s already exists", im.opts.Host)
	} else if err != nil {
		return err
	}
	if err := createSystemGroups(im.tx, im.realm); err != nil {
		return err
	}
	im.res.RealmID, im.res.RealmURL = im.realm.ID, im.realm.URL
	owner, err := im.importUsers()
	if err != nil {
		return err
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
	im.progress("channels")
	return im.importMessages()
}

func (im *slackImport) progress(phase string) {
	if im.opts.Progress != nil {
		im.opts.Progress(ImportProgress{Phase: phase, Users: im.res.Users, Channels: im.res.Channels,
			Messages: im.res.Messages, Elapsed: time.Since(im.start)})
	}
}

// malformed reports a file the import cannot read.
func malformed(name string, format string, args ...any) *Error {
	return errorf("%s: %s", name, fmt.Sprintf(format, args...))
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
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
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
	} `json:"profile"`
}

// importUsers creates the accounts of users.json and returns the ID of an
// owner: the export's primary owner, else its first owner or
// administrator, who becomes an owner.
func (im *slackImport) importUsers() (int64, error) {
	const file = "users.json"
	domain := im.s.emailDomain(im.realm)
	var owner, firstAdmin int64
	err := eachElement(im.ctx, im.files[file], func(su *slackUserJSON) error {
		if su.ID == "" {
			return malformed(file, "a user has no id")
		}
		if _, dup := im.users[su.ID]; dup {
			return malformed(file, "user %s is listed twice", su.ID)
		}
		name := ""
		for _, n := range []string{su.Profile.RealName, su.RealName, su.Name} {
			if checked, err := checkFullName(n); err == nil {
				name = checked
				break
			}
		}
		if name == "" {
			return malformed(file, "user %s has no valid name", su.ID)
		}
		u := storage.UserRecord{RealmID: im.realm.ID, FullName: name, Role: RoleMember, IsActive: !su.Deleted,
			DateJoined: im.s.now(), IsImportedStub: true, AvatarSource: AvatarGravatar, AvatarVersion: 1,
			EmailVisibility: im.realm.DefaultEmailVisibility, PresenceEnabled: true}
		switch {
		case su.IsBot:
			u.BotType = BotGeneric
			u.EmailVisibility = EmailVisibleEveryone
			u.Email = strings.ToLower(su.ID) + "-bot@" + domain
		case validEmail(su.Profile.Email):
			u.Email = su.Profile.Email
		default:
			u.Email = "slack-" + strings.ToLower(su.ID) + "@" + domain
		}
		switch {
		case su.IsBot:
		case su.IsPrimaryOwner || su.IsOwner:
			u.Role = RoleOwner
		case su.IsAdmin:
			u.Role = RoleAdmin
		case su.IsRestricted || su.IsUltraRestricted:
			u.Role = RoleGuest
		}
		if su.TZ != "" && validTimezone(su.TZ) {
			u.Timezone = su.TZ
		}
		var err error
		if u.APIKey, err = im.s.newAPIKey(); err != nil {
			return err
		}
		if err := im.tx.CreateUser(&u); errors.Is(err, storage.ErrExists) {
			return malformed(file, "user %s: email address %s is used twice", su.ID, u.Email)
		} else if err != nil {
			return err
		}
		im.users[su.ID] = &slackUser{id: u.ID, name: u.FullName}
		im.res.Users++
		if u.IsBot() {
			im.res.Bots++
		}
		if u.IsActive && !u.IsBot() {
			switch {
			case su.IsPrimaryOwner || (owner == 0 && su.IsOwner):
				owner = u.ID
			case firstAdmin == 0 && su.IsAdmin:
				firstAdmin = u.ID
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if owner == 0 && firstAdmin != 0 {
		u, err := im.tx.User(firstAdmin)
		if err != nil {
			return 0, err
		}
		u.Role = RoleOwner
		if err := im.tx.UpdateUser(u); err != nil {
			return 0, err
		}
		owner = firstAdmin
	}
	if owner == 0 {
		return 0, malformed(file, "no active owner or administrator")
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
		if !validRealmEmojiName(name) {
			continue
		}
		e := storage.RealmEmoji{RealmID: im.realm.ID, Name: name}
		if err := im.tx.CreateRealmEmoji(&e); err != nil {
			return err
		}
		im.realmEmoji[name] = e.ID
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
	g, err := loadGroups(im.tx, im.realm.ID)
	if err != nil {
		return err
	}
	used := map[int64]map[string]bool{}
	keys := map[string]bool{}
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
			creator := owner
			if u, ok := im.users[sc.Creator]; ok {
				creator = u.id
			}
			creatorRec, err := im.tx.User(creator)
			if err != nil {
				return err
			}
			c, err := im.s.channelTemplate(im.tx, g, &creatorRec, im.realm, &SubscribeRequest{InviteOnly: private})
			if err != nil {
				return err
			}
			// Slack shows a private channel's history to every member.
			c.HistoryPublicToSubscribers = true
			c.IsDefault = sc.IsGeneral && !private
			c.IsArchived = sc.IsArchived
			if sec := sc.Created.seconds(); sec > 0 {
				c.DateCreated = time.Unix(sec, 0).UTC()
			}
			c.Name = uniqueChannelName(sc.Name, keys)
			desc := sc.Purpose.Value
			if desc == "" {
				desc = sc.Topic.Value
			}
			if desc = im.conv.plain(desc); utf8.RuneCountInString(desc) > MaxChannelDescriptionLength {
				desc = string([]rune(desc)[:MaxChannelDescriptionLength])
			}
			c.Description = desc
			c.RenderedDescription = renderPlainText(desc)
			if err := im.tx.CreateChannels([]*storage.Channel{&c}); err != nil {
				return err
			}
			im.channels[sc.ID] = &slackConv{folder: sc.Name, channelID: c.ID, name: c.Name}
			var subs []storage.Subscription
			seen := map[int64]bool{}
			for _, m := range sc.Members {
				u, ok := im.users[m]
				if !ok || seen[u.id] {
					continue
				}
				seen[u.id] = true
				if used[u.id] == nil {
					used[u.id] = map[string]bool{}
				}
				color := pickColor(used[u.id], c.ID)
				used[u.id][color] = true
				subs = append(subs, storage.Subscription{UserID: u.id, ChannelID: c.ID, Color: color})
			}
			if err := im.tx.CreateSubscriptions(subs); err != nil {
				return err
			}
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

// uniqueChannelName fits a Slack channel name to our limits and makes it
// unique (Slack allows longer names) by a numeric suffix.
func uniqueChannelName(name string, keys map[string]bool) string {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxChannelNameLength {
		name = string([]rune(name)[:MaxChannelNameLength])
	}
	base := name
	for n := 2; keys[storage.ChannelNameKey(name)]; n++ {
		suffix := "-" + strconv.Itoa(n)
		r := []rune(base)
		if len(r)+len(suffix) > MaxChannelNameLength {
			r = r[:MaxChannelNameLength-len(suffix)]
		}
		name = string(r) + suffix
	}
	keys[storage.ChannelNameKey(name)] = true
	return name
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
				if u, ok := im.users[m]; ok {
					ids = append(ids, u.id)
				}
			}
			ids = uniqueIDs(ids)
			slices.Sort(ids)
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
