package postgres

import "github.com/teamchat/chat/storage/internal/sqlcommon"

// forms scans every column into its Go value itself: pgx converts
// booleans, arrays and NULL (into a nil pointer) without help.
var forms sqlcommon.Forms = pgForms{}

type pgForms struct{}

func (pgForms) Bool(p *bool) any          { return p }
func (pgForms) NullBool(p **bool) any     { return p }
func (pgForms) NullString(p **string) any { return p }
func (pgForms) IDs(p *[]int64) any        { return p }
func (pgForms) Strings(p *[]string) any   { return p }

// withForms binds a scanner of package sqlcommon to PostgreSQL's forms.
func withForms[T any](scan func(sqlcommon.Forms, sqlcommon.Scanner) (T, error)) func(sqlcommon.Scanner) (T, error) {
	return func(sc sqlcommon.Scanner) (T, error) { return scan(forms, sc) }
}

// The scanners that one and list take, made once.
var (
	scanRealm        = withForms(sqlcommon.ScanRealm)
	scanUser         = withForms(sqlcommon.ScanUser)
	scanChannel      = withForms(sqlcommon.ScanChannel)
	scanSub          = withForms(sqlcommon.ScanSubscription)
	scanFolder       = withForms(sqlcommon.ScanFolder)
	scanUserGroup    = withForms(sqlcommon.ScanUserGroup)
	scanProfileField = withForms(sqlcommon.ScanProfileField)
	scanProfileValue = withForms(sqlcommon.ScanProfileValue)
	scanRealmEmoji   = withForms(sqlcommon.ScanRealmEmoji)
	scanLinkifier    = withForms(sqlcommon.ScanLinkifier)
	scanRealmDomain  = withForms(sqlcommon.ScanRealmDomain)
	scanUserTopic    = sqlcommon.ScanUserTopic
	scanAttachment   = sqlcommon.ScanAttachment
	scanID           = sqlcommon.ScanID
)
