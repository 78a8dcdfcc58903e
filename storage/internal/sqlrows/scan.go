package sqlrows

import "github.com/teamchat/chat/storage"

// Scanner is a row to read: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows.
type Scanner interface{ Scan(dest ...any) error }

// Every scanner of this package is a func(Dialect, Scanner) (T, error),
// whether or not its columns differ between the dialects, so that a
// backend can pass any of them where it takes one.

// Dialect gives the scan destinations of the columns that the databases
// store differently. PostgreSQL returns p itself for each; SQLite, whose
// booleans are the integers 0 and 1 and whose arrays are JSON text, returns
// a destination that converts. A destination must not allocate more than
// the value it makes.
type Dialect interface {
	Bool(p *bool) any          // BOOLEAN NOT NULL
	NullBool(p **bool) any     // BOOLEAN, NULL for nil
	NullString(p **string) any // TEXT, NULL for nil
	IDs(p *[]int64) any        // an array of IDs
	Strings(p *[]string) any   // an array of strings
}

// Realm reads the RealmColumns.
func Realm(d Dialect, sc Scanner) (storage.Realm, error) {
	var (
		r                      storage.Realm
		created, visibility    int64
		editLimit, deleteLimit int64
		topicsPolicy           string
	)
	err := sc.Scan(&r.ID, &r.Name, &r.Description, &r.Host, &r.URL, d.Bool(&r.Deactivated), &created, &visibility,
		&r.NewStreamAnnouncementsStreamID, &r.SignupAnnouncementsStreamID, &r.ZulipUpdateAnnouncementsStreamID,
		&r.ModerationRequestChannelID, d.Bool(&r.EmailsRestrictedToDomains),
		d.Bool(&r.DisallowDisposableEmailAddresses), d.Bool(&r.AllowMessageEditing), &editLimit, &deleteLimit,
		&topicsPolicy, &r.DefaultLanguage, &r.VideoChatProvider, d.Bool(&r.EnableSpectatorAccess),
		&r.WaitingPeriodThreshold, d.Bool(&r.InviteRequired), d.Bool(&r.SendChannelEventsMessages))
	r.MessageContentEditLimitSeconds = storage.TimeLimit(editLimit)
	r.MessageContentDeleteLimitSeconds = storage.TimeLimit(deleteLimit)
	r.TopicsPolicy = storage.TopicsPolicy(topicsPolicy)
	r.DateCreated = FromNanos(created)
	r.DefaultEmailVisibility = storage.EmailVisibility(visibility)
	return r, err
}

// User reads the UserColumns.
func User(d Dialect, sc Scanner) (storage.UserRecord, error) {
	var (
		u                                     storage.UserRecord
		role, botType, joined, login, avatarV int64
		visibility                            int64
		reactionType                          string
	)
	err := sc.Scan(&u.ID, &u.RealmID, &u.Email, &u.FullName, &role, d.Bool(&u.IsActive), &botType, &u.BotOwnerID,
		&joined, &login, d.Bool(&u.IsImportedStub), &u.Timezone, &u.AvatarSource, &avatarV, &u.APIKey,
		&u.PasswordHash, &visibility, d.Bool(&u.CanChangeUserEmails), d.Bool(&u.PresenceEnabled), &u.Status.Text,
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

// Message reads the MessageColumns into m, then the extra destinations.
func Message(d Dialect, sc Scanner, m *storage.MessageRecord, extra ...any) error {
	var (
		rt, sent, edited int64
		users            []int64
	)
	dest := append([]any{&m.ID, &m.RealmID, &m.SenderID, &rt, &m.ChannelID, d.IDs(&users), &m.Topic, &m.Content,
		&m.RenderedContent, &sent, &m.Client, &edited, d.Bool(&m.HasLink), d.Bool(&m.HasImage),
		d.Bool(&m.HasAttachment)}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return err
	}
	m.RecipientType, m.DateSent, m.EditedAt = int(rt), FromNanos(sent), FromNanos(edited)
	if len(users) > 0 {
		m.DirectUserIDs = users
	}
	return nil
}

// Channel reads the columns of SelectChannel.
func Channel(d Dialect, sc Scanner) (storage.Channel, error) {
	var (
		c                                             storage.Channel
		created, retain                               int64
		policy                                        string
		add, remove, admin, delAny, delOwn, send, sub string
	)
	if err := sc.Scan(&c.ID, &c.RealmID, &c.Name, &c.Description, &c.RenderedDescription, &created,
		&c.CreatorID, d.Bool(&c.InviteOnly), d.Bool(&c.IsWebPublic), d.Bool(&c.HistoryPublicToSubscribers),
		d.Bool(&c.IsDefault), &retain, &policy, &c.FolderID, &c.FirstMessageID, d.Bool(&c.IsArchived),
		&add, &remove, &admin, &delAny, &delOwn, &send, &sub); err != nil {
		return c, err
	}
	c.DateCreated = FromNanos(created)
	c.MessageRetentionDays = int(retain)
	c.TopicsPolicy = storage.TopicsPolicy(policy)
	for _, f := range []struct {
		text string
		dst  *storage.GroupSetting
	}{{add, &c.CanAddSubscribersGroup}, {remove, &c.CanRemoveSubscribersGroup}, {admin, &c.CanAdministerChannelGroup},
		{delAny, &c.CanDeleteAnyMessageGroup}, {delOwn, &c.CanDeleteOwnMessageGroup}, {send, &c.CanSendMessageGroup},
		{sub, &c.CanSubscribeGroup}} {
		v, err := storage.ParseGroupSetting("value", []byte(f.text))
		if err != nil {
			return c, err
		}
		*f.dst = v
	}
	return c, nil
}

// GroupSettingText is the column value of a group setting: its JSON.
func GroupSettingText(v storage.GroupSetting) string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// Subscription reads the SubscriptionColumns. The notification settings
// are NULL where they follow the user's defaults.
func Subscription(d Dialect, sc Scanner) (storage.Subscription, error) {
	var s storage.Subscription
	err := sc.Scan(&s.UserID, &s.ChannelID, &s.Color, d.Bool(&s.IsMuted), d.Bool(&s.PinToTop),
		d.NullBool(&s.DesktopNotifications), d.NullBool(&s.AudibleNotifications), d.NullBool(&s.PushNotifications),
		d.NullBool(&s.EmailNotifications), d.NullBool(&s.WildcardMentionsNotify))
	return s, err
}

// UserGroup reads the columns of SelectUserGroup.
func UserGroup(d Dialect, sc Scanner) (storage.UserGroup, error) {
	var (
		g       storage.UserGroup
		created int64
	)
	err := sc.Scan(&g.ID, &g.RealmID, &g.Name, &g.Description, d.Bool(&g.IsSystem), &g.CreatorID, &created,
		d.Bool(&g.Deactivated), d.IDs(&g.Members), d.IDs(&g.Subgroups))
	g.DateCreated = FromNanos(created)
	return g, err
}

// Folder reads the columns of SelectFolder.
func Folder(d Dialect, sc Scanner) (storage.ChannelFolder, error) {
	var (
		f       storage.ChannelFolder
		created int64
	)
	err := sc.Scan(&f.ID, &f.RealmID, &f.Name, &f.Description, &f.RenderedDescription, &f.CreatorID,
		&created, d.Bool(&f.IsArchived), &f.Order)
	f.DateCreated = FromNanos(created)
	return f, err
}

// UserTopic reads the columns of SelectUserTopic.
func UserTopic(_ Dialect, sc Scanner) (storage.UserTopic, error) {
	var (
		ut              storage.UserTopic
		policy, updated int64
	)
	err := sc.Scan(&ut.UserID, &ut.ChannelID, &ut.Topic, &policy, &updated)
	ut.VisibilityPolicy, ut.LastUpdated = int(policy), FromNanos(updated)
	return ut, err
}
