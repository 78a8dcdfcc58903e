package chat

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// ImportOrganization describes the organization that Import creates.
type ImportOrganization struct {
	// Name is the organization's name; empty means "Imported organization".
	Name string
	// Host through which clients reach the organization; "localhost" when
	// empty. It must not be another organization's.
	Host string
	// URL is the canonical URL; "http://" + Host when empty.
	URL string
}

// Importer writes the content of one new organization in bulk, for
// importers of other chat services' exports (package slackimport). Its
// methods apply this package's rules for names, addresses, channels,
// messages and files, but check no permission and send no events: the
// organization has no clients yet. Every write belongs to the one
// transaction of Import.
type Importer struct {
	s      *Service
	ctx    context.Context
	tx     storage.Tx
	realm  Realm
	groups *groups
	// colors are the subscription colors each user has so far; channelKeys
	// the channel names taken.
	colors      map[int64]map[string]bool
	channelKeys map[string]bool
	// emoji caches the reactions' emoji by name: nothing but the import
	// writes the new organization.
	emoji map[string]importedEmoji
	// blobs are the keys of the files stored so far, deleted when the
	// import fails or starts over.
	blobs []string
}

// Import creates an organization and fills it through fn, all in one
// transaction, so that a failed import leaves nothing behind (files
// already stored are deleted). fn may run more than once when the store
// retries the transaction after a conflict (PostgreSQL's serialization
// failures); each run must start over from its arguments. It is a
// provisioning operation for the server's operator and checks no actor.
//
// Errors: BAD_REQUEST for an invalid name or host, or a host already
// taken; the errors of fn; internal errors of the store or blob store.
func (s *Service) Import(ctx context.Context, org ImportOrganization, fn func(*Importer) error) (Realm, error) {
	if strings.TrimSpace(org.Name) == "" {
		org.Name = "Imported organization"
	}
	if err := normaliseOrg(&org.Name, &org.Host, &org.URL); err != nil {
		return Realm{}, err
	}
	im := &Importer{s: s, ctx: ctx}
	err := s.update(ctx, noActor, func(tx storage.Tx) error {
		im.deleteBlobs() // the files of an attempt that was rolled back
		*im = Importer{s: s, ctx: ctx, tx: tx, colors: map[int64]map[string]bool{}, channelKeys: map[string]bool{},
			emoji: map[string]importedEmoji{}}
		im.realm = Realm{Name: org.Name, Host: org.Host, URL: org.URL, DateCreated: s.now(),
			DefaultEmailVisibility: EmailVisibleEveryone, RealmSettings: DefaultRealmSettings()}
		if err := tx.CreateRealm(&im.realm); errors.Is(err, storage.ErrExists) {
			return errorf("An organization with host %s already exists", org.Host)
		} else if err != nil {
			return err
		}
		if err := createSystemGroups(tx, im.realm); err != nil {
			return err
		}
		g, err := loadGroups(tx, im.realm.ID)
		if err != nil {
			return err
		}
		im.groups = g
		return fn(im)
	})
	if err != nil {
		im.deleteBlobs()
		return Realm{}, err
	}
	return im.realm, nil
}

// deleteBlobs deletes the files stored so far.
func (im *Importer) deleteBlobs() {
	for _, key := range im.blobs {
		im.s.deleteBlob(im.ctx, key)
	}
	im.blobs = nil
}

// Context is the context of the import.
func (im *Importer) Context() context.Context { return im.ctx }

// Realm is the organization being imported.
func (im *Importer) Realm() Realm { return im.realm }

// ImportUser is an account to import. It is created as an imported stub,
// which becomes a full account at its first login.
type ImportUser struct {
	// FullNames are candidate full names, preferred first: the first that
	// the API accepts as a full name is the user's (exports often keep a
	// display name, a real name and a handle).
	FullNames []string
	// Email is the user's address when it is a valid one; otherwise the
	// address is LocalPart at the organization's email domain.
	Email     string
	LocalPart string
	Role      Role
	// Bot makes a generic bot; its address is visible to everyone.
	Bot    bool
	Active bool
	// Timezone is an IANA name; an unknown one is left out.
	Timezone string
}

// ErrImportNoName answers an imported user none of whose names is a valid
// full name.
var ErrImportNoName = errorf("No valid name")

// ErrImportEmailTaken answers an imported user whose address another
// imported user has.
var ErrImportEmailTaken = errorf("Email address is used twice")

// CreateUser creates an imported account and returns its ID and the full
// name it got.
//
// Errors: ErrImportNoName, ErrImportEmailTaken; internal errors of the
// store.
func (im *Importer) CreateUser(iu ImportUser) (int64, string, error) {
	name := ""
	for _, n := range iu.FullNames {
		if checked, err := checkFullName(n); err == nil {
			name = checked
			break
		}
	}
	if name == "" {
		return 0, "", ErrImportNoName
	}
	u := storage.UserRecord{RealmID: im.realm.ID, FullName: name, Role: iu.Role, IsActive: iu.Active,
		DateJoined: im.s.now(), IsImportedStub: true, AvatarSource: AvatarGravatar, AvatarVersion: 1,
		EmailVisibility: im.realm.DefaultEmailVisibility, PresenceEnabled: true, Email: iu.Email}
	if !validEmail(u.Email) {
		u.Email = strings.ToLower(iu.LocalPart) + "@" + im.s.emailDomain(im.realm)
	}
	if iu.Bot {
		u.BotType, u.Role, u.EmailVisibility = BotGeneric, RoleMember, EmailVisibleEveryone
	}
	if iu.Timezone != "" && validTimezone(iu.Timezone) {
		u.Timezone = iu.Timezone
	}
	var err error
	if _, u.APIKey, err = im.s.newStoredAPIKey(); err != nil {
		return 0, "", err
	}
	if err := im.tx.CreateUser(&u); errors.Is(err, storage.ErrExists) {
		return 0, "", ErrImportEmailTaken
	} else if err != nil {
		return 0, "", err
	}
	return u.ID, u.FullName, nil
}

// SetRole changes the role of an imported user.
//
// Errors: internal errors of the store.
func (im *Importer) SetRole(userID int64, role Role) error {
	u, err := im.tx.User(userID)
	if err != nil {
		return err
	}
	u.Role = role
	return im.tx.UpdateUser(u)
}

// CreateEmoji records a custom emoji of the organization and returns its
// ID. The emoji has no image: this server keeps none for imported ones.
//
// Errors: ErrInvalidEmojiName for a name custom emoji cannot have;
// internal errors of the store.
func (im *Importer) CreateEmoji(name string) (int64, error) {
	if !validRealmEmojiName(name) {
		return 0, ErrInvalidEmojiName
	}
	e := storage.RealmEmoji{RealmID: im.realm.ID, Name: name}
	if err := im.tx.CreateRealmEmoji(&e); err != nil {
		return 0, err
	}
	delete(im.emoji, name) // a reaction may have found the name unknown
	return e.ID, nil
}

// ImportChannel is a channel to import.
type ImportChannel struct {
	// Name is cut to the length limit and made unique among the imported
	// channels with a numeric suffix.
	Name string
	// Description is plain text, cut to the length limit.
	Description string
	// CreatorID is the imported user who created the channel.
	CreatorID int64
	// Private channels are invite-only; their history is visible to every
	// subscriber, as in the services exports come from.
	Private  bool
	Default  bool
	Archived bool
	// Created is the creation time; the zero time means now.
	Created time.Time
	// Members are imported users to subscribe; repeats are ignored.
	Members []int64
}

// CreateChannel creates an imported channel with its subscribers and
// returns its ID and the name it got.
//
// Errors: internal errors of the store.
func (im *Importer) CreateChannel(ic ImportChannel) (int64, string, error) {
	creator, err := im.tx.User(ic.CreatorID)
	if err != nil {
		return 0, "", err
	}
	c, err := im.s.channelTemplate(im.tx, im.groups, &creator, im.realm, &SubscribeRequest{InviteOnly: ic.Private})
	if err != nil {
		return 0, "", err
	}
	c.HistoryPublicToSubscribers = true
	c.IsDefault = ic.Default && !ic.Private
	c.IsArchived = ic.Archived
	if !ic.Created.IsZero() {
		c.DateCreated = ic.Created.UTC()
	}
	c.Name = uniqueChannelName(ic.Name, im.channelKeys)
	desc := strings.TrimSpace(ic.Description)
	if utf8.RuneCountInString(desc) > MaxChannelDescriptionLength {
		desc = string([]rune(desc)[:MaxChannelDescriptionLength])
	}
	c.Description, c.RenderedDescription = desc, renderPlainText(desc)
	if err := im.tx.CreateChannels([]*storage.Channel{&c}); err != nil {
		return 0, "", err
	}
	var subs []storage.Subscription
	for _, id := range uniqueIDs(slices.Clone(ic.Members)) {
		used := im.colors[id]
		if used == nil {
			used = map[string]bool{}
			im.colors[id] = used
		}
		color := pickColor(used, c.ID)
		used[color] = true
		subs = append(subs, storage.Subscription{UserID: id, ChannelID: c.ID, Color: color})
	}
	if err := im.tx.CreateSubscriptions(subs); err != nil {
		return 0, "", err
	}
	return c.ID, c.Name, nil
}

// uniqueChannelName fits a channel name to the limits and makes it unique
// among keys (other services allow longer names) by a numeric suffix.
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

// Topic returns text as a topic, as the API would store it (trimmed, cut
// to the length limit), or false when the API would refuse it.
func (im *Importer) Topic(text string) (string, bool) {
	t, err := normaliseTopic(text)
	return t, err == nil
}

// ImportMessage is a message to import.
type ImportMessage struct {
	SenderID int64
	// ChannelID and Topic address a channel message; DirectUserIDs (the
	// sender among them) a direct one.
	ChannelID     int64
	Topic         string
	DirectUserIDs []int64
	// Content is Markdown.
	Content string
	Sent    time.Time
	// Edited is the time of the last edit; the zero time for none.
	Edited time.Time
	// Client names where the message came from.
	Client string
}

// AddMessages renders and stores messages in one batch and returns their
// IDs, in order. A message whose content is empty once trimmed is not
// stored: its ID is 0. Messages are stored as read by their recipients
// and notify nobody.
//
// Errors: BAD_REQUEST for a topic the API refuses; internal errors of the
// store.
func (im *Importer) AddMessages(ms []ImportMessage) ([]int64, error) {
	ids := make([]int64, len(ms))
	recs := make([]*storage.MessageRecord, 0, len(ms))
	stored := make([]int, 0, len(ms))
	for i, m := range ms {
		content, err := normaliseContent(m.Content)
		if err != nil {
			continue
		}
		r := &storage.MessageRecord{RealmID: im.realm.ID, SenderID: m.SenderID, Content: content,
			DateSent: m.Sent.UTC(), Client: m.Client}
		if !m.Edited.IsZero() {
			r.EditedAt = m.Edited.UTC()
		}
		if m.ChannelID != 0 {
			if r.Topic, err = normaliseTopic(m.Topic); err != nil {
				return nil, err
			}
			r.RecipientType, r.ChannelID = RecipientChannel, m.ChannelID
		} else {
			r.RecipientType, r.DirectUserIDs = RecipientDirect, m.DirectUserIDs
		}
		recs = append(recs, r)
		stored = append(stored, i)
	}
	if err := im.s.deliver(im.tx, func(Event) {}, im.realm.ID, recs, deliverOptions{imported: true}); err != nil {
		return nil, err
	}
	for j, i := range stored {
		ids[i] = recs[j].ID
	}
	return ids, nil
}

// AddReaction adds a user's reaction to an imported message, naming the
// emoji as users write it: a custom emoji of the organization, else a
// Unicode emoji name or alias. It reports false for a name it does not
// know.
//
// Errors: ErrReactionExists when the user already has a reaction with the
// same emoji (under another of its names); internal errors of the store.
func (im *Importer) AddReaction(messageID, userID int64, emojiName string) (bool, error) {
	e, ok := im.emoji[emojiName]
	if !ok {
		code, typ, err := emojiByName(im.tx, im.realm.ID, emojiName)
		var unknown *Error
		if err != nil && !errors.As(err, &unknown) {
			return false, err
		}
		e = importedEmoji{code, typ, err == nil}
		im.emoji[emojiName] = e
	}
	if !e.known {
		return false, nil
	}
	err := im.tx.CreateReaction(storage.Reaction{MessageID: messageID, UserID: userID,
		EmojiName: emojiName, EmojiCode: e.code, ReactionType: e.typ})
	if errors.Is(err, storage.ErrExists) {
		return true, ErrReactionExists
	}
	return err == nil, err
}

// importedEmoji is what AddReaction found for an emoji name.
type importedEmoji struct {
	code  string
	typ   ReactionType
	known bool
}

// StoreFile stores a file that ownerID shared and returns the URL that
// messages link it by ("/user_uploads/...").
//
// Errors: ErrBlobTooLarge for a file over the upload limit (nothing is
// stored); BAD_REQUEST for a name the API refuses; internal errors of the
// store or blob store.
func (im *Importer) StoreFile(ownerID int64, name, contentType string, r io.Reader) (string, error) {
	st, err := im.s.newStaged(AsUser(ownerID), im.realm.ID, name, contentType, false)
	if err != nil {
		return "", err
	}
	n, err := im.s.cfg.Blobs.Put(im.ctx, st.pathID, r, im.s.maxUploadBytes())
	if err != nil {
		return "", err
	}
	im.blobs = append(im.blobs, st.pathID)
	a := Attachment{RealmID: im.realm.ID, OwnerID: ownerID, PathID: st.pathID, Name: st.name,
		Size: n, ContentType: st.contentType, CreateTime: im.s.now()}
	if err := im.tx.CreateAttachment(&a); err != nil {
		return "", err
	}
	return a.URL(), nil
}
