package postgres

import (
	"github.com/jackc/pgx/v5"
	"github.com/teamchat/chat/storage/internal/sqlrows"
)

// dialect scans every column into its Go value itself: pgx converts
// booleans, arrays and NULL (into a nil pointer) without help.
var dialect sqlrows.Dialect = pgDialect{}

type pgDialect struct{}

func (pgDialect) Bool(p *bool) any          { return p }
func (pgDialect) NullBool(p **bool) any     { return p }
func (pgDialect) NullString(p **string) any { return p }
func (pgDialect) IDs(p *[]int64) any        { return p }
func (pgDialect) Strings(p *[]string) any   { return p }

// rowsOf adapts a scanner of package sqlrows to one and list.
func rowsOf[T any](scan func(sqlrows.Dialect, sqlrows.Scanner) (T, error)) func(pgx.Row) (T, error) {
	return func(row pgx.Row) (T, error) { return scan(dialect, row) }
}

// The scanners of the records that one and list read, made once.
var (
	scanRealm        = rowsOf(sqlrows.Realm)
	scanUser         = rowsOf(sqlrows.User)
	scanChannel      = rowsOf(sqlrows.Channel)
	scanSub          = rowsOf(sqlrows.Subscription)
	scanFolder       = rowsOf(sqlrows.Folder)
	scanUserTopic    = rowsOf(sqlrows.UserTopic)
	scanUserGroup    = rowsOf(sqlrows.UserGroup)
	scanProfileField = rowsOf(sqlrows.ProfileField)
	scanProfileValue = rowsOf(sqlrows.ProfileValue)
	scanRealmEmoji   = rowsOf(sqlrows.RealmEmoji)
	scanLinkifier    = rowsOf(sqlrows.Linkifier)
	scanRealmDomain  = rowsOf(sqlrows.RealmDomain)
	scanAttachment   = rowsOf(sqlrows.Attachment)
	scanDevice       = rowsOf(sqlrows.Device)
	scanPresence     = rowsOf(sqlrows.Presence)
	scanID           = rowsOf(sqlrows.ID)
)
