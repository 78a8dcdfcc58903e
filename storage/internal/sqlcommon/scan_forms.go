package sqlcommon

import (
	"strconv"

	"github.com/teamchat/chat/storage"
)

// The column lists of the scanners below that rows.go does not name.
const (
	SubscriptionColumns = `user_id, channel_id, color, is_muted, pin_to_top, desktop, audible, push, email, wildcard`
	SelectSubscription  = `SELECT ` + SubscriptionColumns + ` FROM subscriptions `
	SelectUserGroup     = `SELECT id, realm_id, name, description, is_system, creator_id, date_created,
		deactivated, members, subgroups, settings FROM user_groups `
	SelectFolder = `SELECT id, realm_id, name, description, rendered_description, creator_id, date_created,
		is_archived, ord FROM channel_folders `
	SelectUserTopic = `SELECT user_id, channel_id, topic, visibility_policy, last_updated FROM user_topics `
	SelectLinkifier = `SELECT id, realm_id, pattern, url_template, example_input, reverse_template,
		alternative_url_templates, sort_order FROM linkifiers `
	SelectRealmDomain = `SELECT id, realm_id, domain, allow_subdomains FROM realm_domains `
	SelectAttachment  = `SELECT id, realm_id, owner_id, path_id, name, size, content_type, create_time
		FROM attachments `
	SelectDevice = `SELECT id, user_id, realm_id, push_key, push_key_id, token_kind, token_id,
		bouncer_public_key, encrypted_push_registration, create_time FROM devices `
)

// Forms gives the scan destinations of the columns that the databases
// store differently. PostgreSQL returns p itself for each; SQLite, whose
// booleans are the integers 0 and 1 and whose arrays are JSON text, returns
// a destination that converts. A destination must not allocate more than
// the value it makes.
type Forms interface {
	Bool(p *bool) any          // BOOLEAN NOT NULL
	NullBool(p **bool) any     // BOOLEAN, NULL for nil
	NullString(p **string) any // TEXT, NULL for nil
	IDs(p *[]int64) any        // an array of IDs
	Strings(p *[]string) any   // an array of strings
}

// ScanRealm reads the RealmColumns.
func ScanRealm(f Forms, sc Scanner) (storage.Realm, error) {
	var (
		r                      storage.Realm
		created, visibility    int64
		editLimit, deleteLimit int64
		withinLimit, moveLimit int64
		topicsPolicy, history  string
		topicsGroup, chGroup   string
	)
	err := sc.Scan(&r.ID, &r.Name, &r.Description, &r.Host, &r.URL, f.Bool(&r.Deactivated), &created, &visibility,
		&r.NewStreamAnnouncementsStreamID, &r.SignupAnnouncementsStreamID, &r.ZulipUpdateAnnouncementsStreamID,
		&r.ModerationRequestChannelID, f.Bool(&r.EmailsRestrictedToDomains),
		f.Bool(&r.DisallowDisposableEmailAddresses), f.Bool(&r.AllowMessageEditing), &editLimit, &deleteLimit,
		&topicsPolicy, &r.DefaultLanguage, &r.VideoChatProvider, f.Bool(&r.EnableSpectatorAccess),
		&r.WaitingPeriodThreshold, f.Bool(&r.InviteRequired), f.Bool(&r.SendChannelEventsMessages),
		&withinLimit, &moveLimit, &history, &topicsGroup, &chGroup, &r.DefaultCodeBlockLanguage)
	if err != nil {
		return r, err
	}
	r.MessageEditHistoryVisibilityPolicy = storage.EditHistoryPolicy(history)
	if r.CanMoveMessagesBetweenTopicsGroup, err = parseRealmGroup(topicsGroup); err != nil {
		return r, err
	}
	if r.CanMoveMessagesBetweenChannelsGroup, err = parseRealmGroup(chGroup); err != nil {
		return r, err
	}
	r.MoveMessagesWithinStreamLimitSeconds = storage.TimeLimit(withinLimit)
	r.MoveMessagesBetweenStreamsLimitSeconds = storage.TimeLimit(moveLimit)
	r.MessageContentEditLimitSeconds = storage.TimeLimit(editLimit)
	r.MessageContentDeleteLimitSeconds = storage.TimeLimit(deleteLimit)
	r.TopicsPolicy = storage.TopicsPolicy(topicsPolicy)
	r.DateCreated = FromNanos(created)
	r.DefaultEmailVisibility = storage.EmailVisibility(visibility)
	return r, err
}

// ScanUserAndRealm reads UserAndRealmColumns: the user's columns, then
// its realm's, in one row.
func ScanUserAndRealm(f Forms, sc Scanner) (u storage.UserRecord, r storage.Realm, err error) {
	// ScanRealm asks for its destinations, ScanUser inside it for its
	// own, and the row is scanned into both at once; each then converts
	// what it read.
	r, err = ScanRealm(f, scanFunc(func(realmDest ...any) error {
		var userErr error
		u, userErr = ScanUser(f, scanFunc(func(userDest ...any) error {
			return sc.Scan(append(userDest, realmDest...)...)
		}))
		return userErr
	}))
	return u, r, err
}

// scanFunc is a Scanner made of a function.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// ScanUser reads the UserColumns.
func ScanUser(f Forms, sc Scanner) (storage.UserRecord, error) {
	var (
		u                                     storage.UserRecord
		role, botType, joined, login, avatarV int64
		visibility                            int64
		reactionType                          string
	)
	err := sc.Scan(&u.ID, &u.RealmID, &u.Email, &u.FullName, &role, f.Bool(&u.IsActive), &botType, &u.BotOwnerID,
		&joined, &login, f.Bool(&u.IsImportedStub), &u.Timezone, &u.AvatarSource, &avatarV, &u.APIKey,
		&u.PasswordHash, &visibility, f.Bool(&u.CanChangeUserEmails), f.Bool(&u.PresenceEnabled), &u.Status.Text,
		&u.Status.EmojiName, &u.Status.EmojiCode, &reactionType)
	u.Status.ReactionType = storage.ReactionType(reactionType)
	u.Role = storage.Role(role)
	u.BotType = storage.BotType(botType)
	u.DateJoined = FromNanos(joined)
	u.LastLogin = FromNanos(login)
	u.AvatarVersion = int(avatarV)
	u.EmailVisibility = storage.EmailVisibility(visibility)
	return u, err
}

// ScanMessage reads the MessageColumns into m, then the extra destinations.
func ScanMessage(f Forms, sc Scanner, m *storage.MessageRecord, extra ...any) error {
	var (
		rt, sent, edited int64
		users            []int64
	)
	dest := append([]any{&m.ID, &m.RealmID, &m.SenderID, &rt, &m.ChannelID, f.IDs(&users), &m.Topic, &m.Content,
		&m.RenderedContent, &sent, &m.Client, &edited, f.Bool(&m.HasLink), f.Bool(&m.HasImage),
		f.Bool(&m.HasAttachment)}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return err
	}
	m.RecipientType, m.DateSent, m.EditedAt = int(rt), FromNanos(sent), FromNanos(edited)
	if len(users) > 0 {
		m.DirectUserIDs = users
	}
	return nil
}

// ScanChannel reads the columns of SelectChannel.
func ScanChannel(f Forms, sc Scanner) (storage.Channel, error) {
	var (
		c               storage.Channel
		created, retain int64
		policy          string
		groups          [7]string
	)
	if err := sc.Scan(&c.ID, &c.RealmID, &c.Name, &c.Description, &c.RenderedDescription, &created,
		&c.CreatorID, f.Bool(&c.InviteOnly), f.Bool(&c.IsWebPublic), f.Bool(&c.HistoryPublicToSubscribers),
		f.Bool(&c.IsDefault), &retain, &policy, &c.FolderID, &c.FirstMessageID, f.Bool(&c.IsArchived),
		&groups[0], &groups[1], &groups[2], &groups[3], &groups[4], &groups[5], &groups[6]); err != nil {
		return c, err
	}
	c.DateCreated = FromNanos(created)
	c.MessageRetentionDays = int(retain)
	c.TopicsPolicy = storage.TopicsPolicy(policy)
	return c, SetChannelGroups(&c, &groups)
}

// ScanSubscription reads the SubscriptionColumns. The notification settings
// are NULL where they follow the user's defaults.
func ScanSubscription(f Forms, sc Scanner) (storage.Subscription, error) {
	var s storage.Subscription
	err := sc.Scan(&s.UserID, &s.ChannelID, &s.Color, f.Bool(&s.IsMuted), f.Bool(&s.PinToTop),
		f.NullBool(&s.DesktopNotifications), f.NullBool(&s.AudibleNotifications), f.NullBool(&s.PushNotifications),
		f.NullBool(&s.EmailNotifications), f.NullBool(&s.WildcardMentionsNotify))
	return s, err
}

// ScanUserGroup reads the columns of SelectUserGroup.
func ScanUserGroup(f Forms, sc Scanner) (storage.UserGroup, error) {
	var (
		g        storage.UserGroup
		created  int64
		settings string
	)
	err := sc.Scan(&g.ID, &g.RealmID, &g.Name, &g.Description, f.Bool(&g.IsSystem), &g.CreatorID, &created,
		f.Bool(&g.Deactivated), f.IDs(&g.Members), f.IDs(&g.Subgroups), &settings)
	if err != nil {
		return g, err
	}
	g.DateCreated = FromNanos(created)
	g.Settings, err = storage.ParseUserGroupSettings(settings)
	return g, err
}

// ScanFolder reads the columns of SelectFolder.
func ScanFolder(f Forms, sc Scanner) (storage.ChannelFolder, error) {
	var (
		cf      storage.ChannelFolder
		created int64
	)
	err := sc.Scan(&cf.ID, &cf.RealmID, &cf.Name, &cf.Description, &cf.RenderedDescription, &cf.CreatorID,
		&created, f.Bool(&cf.IsArchived), &cf.Order)
	cf.DateCreated = FromNanos(created)
	return cf, err
}

// ScanUserTopic reads the columns of SelectUserTopic.
func ScanUserTopic(sc Scanner) (storage.UserTopic, error) {
	var (
		ut              storage.UserTopic
		policy, updated int64
	)
	err := sc.Scan(&ut.UserID, &ut.ChannelID, &ut.Topic, &policy, &updated)
	ut.VisibilityPolicy, ut.LastUpdated = int(policy), FromNanos(updated)
	return ut, err
}

// ScanProfileField reads the columns of SelectProfileField.
func ScanProfileField(f Forms, sc Scanner) (storage.ProfileField, error) {
	var (
		pf         storage.ProfileField
		typ, order int64
	)
	err := sc.Scan(&pf.ID, &pf.RealmID, &pf.Name, &pf.Hint, &typ, &pf.FieldData, &order, f.Bool(&pf.Required),
		f.Bool(&pf.EditableByUser), f.Bool(&pf.DisplayInProfileSummary), f.Bool(&pf.UseForUserMatching))
	pf.Type = storage.FieldType(typ)
	pf.Order = int(order)
	return pf, err
}

// ScanProfileValue reads the columns of SelectProfileValue.
func ScanProfileValue(f Forms, sc Scanner) (storage.ProfileValueRecord, error) {
	var v storage.ProfileValueRecord
	err := sc.Scan(&v.UserID, &v.FieldID, &v.Value, f.NullString(&v.RenderedValue))
	return v, err
}

// ScanRealmEmoji reads the columns of SelectRealmEmoji.
func ScanRealmEmoji(f Forms, sc Scanner) (storage.RealmEmoji, error) {
	var e storage.RealmEmoji
	err := sc.Scan(&e.ID, &e.RealmID, &e.Name, f.Bool(&e.Deactivated), &e.AuthorID, &e.FileName)
	return e, err
}

// ScanLinkifier reads the columns of SelectLinkifier.
func ScanLinkifier(f Forms, sc Scanner) (storage.LinkifierRecord, error) {
	var l storage.LinkifierRecord
	err := sc.Scan(&l.ID, &l.RealmID, &l.Pattern, &l.URLTemplate, f.NullString(&l.ExampleInput),
		f.NullString(&l.ReverseTemplate), f.Strings(&l.AlternativeURLTemplates), &l.Order)
	l.AlternativeURLTemplates = OrEmpty(l.AlternativeURLTemplates)
	return l, err
}

// ScanRealmDomain reads the columns of SelectRealmDomain.
func ScanRealmDomain(f Forms, sc Scanner) (storage.RealmDomain, error) {
	var rd storage.RealmDomain
	err := sc.Scan(&rd.ID, &rd.RealmID, &rd.Domain, f.Bool(&rd.AllowSubdomains))
	return rd, err
}

// ScanAttachment reads the columns of SelectAttachment.
func ScanAttachment(sc Scanner) (storage.Attachment, error) {
	var (
		a       storage.Attachment
		created int64
	)
	err := sc.Scan(&a.ID, &a.RealmID, &a.OwnerID, &a.PathID, &a.Name, &a.Size, &a.ContentType, &created)
	a.CreateTime = FromNanos(created)
	return a, err
}

// ScanID reads a row of one integer column, such as an ID.
func ScanID(sc Scanner) (int64, error) {
	var id int64
	err := sc.Scan(&id)
	return id, err
}

// Into returns a callback for EachRow that appends to out what scan makes
// of each row.
func Into[T any](out *[]T, scan func(Scanner) (T, error)) func(Scanner) error {
	return func(sc Scanner) error {
		v, err := scan(sc)
		if err != nil {
			return err
		}
		*out = append(*out, v)
		return nil
	}
}

// Tx is what the transactions of the SQL backends implement: the storage
// SPI and every optional query of it.
type Tx interface {
	storage.Tx
	storage.UsersByRoleTx
	storage.BotsOwnedByTx
	storage.ChannelsByNameTx
	storage.SubscriptionColorsTx
	storage.RealmDomainByNameTx
	storage.UserMessageTx
	storage.MessageReadersTx
	storage.ReadMarkerTx
	storage.SubscriberCountsTx
	storage.ActiveSubscribersTx
}

// OrEmpty returns s, or an empty slice for nil: array columns are NOT
// NULL, and records read back have empty lists rather than nil.
func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// SelectMessageEdits reads message_edits in the order of ScanMessageEdit.
const SelectMessageEdits = `SELECT message_id, user_id, edited_at, prev_content, prev_rendered_content, prev_topic, topic,
	prev_channel_id, channel_id FROM message_edits `

// ScanMessageEdit reads a row of SelectMessageEdits.
func ScanMessageEdit(f Forms, sc Scanner) (storage.MessageEditRecord, error) {
	var (
		e  storage.MessageEditRecord
		at int64
	)
	err := sc.Scan(&e.MessageID, &e.UserID, &at, f.NullString(&e.PrevContent), f.NullString(&e.PrevRenderedContent),
		f.NullString(&e.PrevTopic), f.NullString(&e.Topic), &e.PrevChannelID, &e.ChannelID)
	e.Time = FromNanos(at)
	return e, err
}

// InsertMessageEdits runs insert, a dialect's INSERT INTO message_edits
// of the columns of SelectMessageEdits, once per record.
func InsertMessageEdits(edits []storage.MessageEditRecord, insert func(args ...any) error) error {
	for i := range edits {
		args, err := messageEditArgs(&edits[i])
		if err != nil {
			return err
		}
		if err := insert(args...); err != nil {
			return err
		}
	}
	return nil
}

// messageEditArgs returns the column values of e in the order of
// SelectMessageEdits.
func messageEditArgs(e *storage.MessageEditRecord) ([]any, error) {
	at, err := ToNanos(e.Time)
	if err != nil {
		return nil, err
	}
	return []any{e.MessageID, e.UserID, at, e.PrevContent, e.PrevRenderedContent, e.PrevTopic, e.Topic,
		e.PrevChannelID, e.ChannelID}, nil
}

// parseRealmGroup reads a realm's group-setting column; the empty anonymous
// group, which stands for the setting's default, is the zero value.
func parseRealmGroup(text string) (storage.GroupSetting, error) {
	// Every read of a realm parses these: the common forms, the default
	// and a group ID, skip the JSON decoder.
	if text == emptyGroupSetting {
		return storage.GroupSetting{}, nil
	}
	if id, err := strconv.ParseInt(text, 10, 64); err == nil && id > 0 {
		return storage.GroupSetting{GroupID: id}, nil
	}
	v, err := storage.ParseGroupSetting("value", []byte(text))
	if err != nil || v.IsGroup() || len(v.Members)+len(v.Subgroups) > 0 {
		return v, err
	}
	return storage.GroupSetting{}, nil
}

// emptyGroupSetting is the stored text of the empty anonymous group, the
// default of a realm's group settings.
const emptyGroupSetting = `{"direct_members":[],"direct_subgroups":[]}`
