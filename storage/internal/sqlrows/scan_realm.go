package sqlrows

import "github.com/teamchat/chat/storage"

// Scanners of the organization's settings, uploads and devices.

// ProfileField reads the columns of SelectProfileField.
func ProfileField(d Dialect, sc Scanner) (storage.ProfileField, error) {
	var (
		f          storage.ProfileField
		typ, order int64
	)
	err := sc.Scan(&f.ID, &f.RealmID, &f.Name, &f.Hint, &typ, &f.FieldData, &order, d.Bool(&f.Required),
		d.Bool(&f.EditableByUser), d.Bool(&f.DisplayInProfileSummary), d.Bool(&f.UseForUserMatching))
	f.Type = storage.FieldType(typ)
	f.Order = int(order)
	return f, err
}

// ProfileValue reads the columns of SelectProfileValue.
func ProfileValue(d Dialect, sc Scanner) (storage.ProfileValueRecord, error) {
	var v storage.ProfileValueRecord
	err := sc.Scan(&v.UserID, &v.FieldID, &v.Value, d.NullString(&v.RenderedValue))
	return v, err
}

// RealmEmoji reads the columns of SelectRealmEmoji.
func RealmEmoji(d Dialect, sc Scanner) (storage.RealmEmoji, error) {
	var e storage.RealmEmoji
	err := sc.Scan(&e.ID, &e.RealmID, &e.Name, d.Bool(&e.Deactivated), &e.AuthorID)
	return e, err
}

// Linkifier reads the columns of SelectLinkifier.
func Linkifier(d Dialect, sc Scanner) (storage.LinkifierRecord, error) {
	var l storage.LinkifierRecord
	err := sc.Scan(&l.ID, &l.RealmID, &l.Pattern, &l.URLTemplate, d.NullString(&l.ExampleInput),
		d.NullString(&l.ReverseTemplate), d.Strings(&l.AlternativeURLTemplates), &l.Order)
	l.AlternativeURLTemplates = OrEmpty(l.AlternativeURLTemplates)
	return l, err
}

// RealmDomain reads the columns of SelectRealmDomain.
func RealmDomain(d Dialect, sc Scanner) (storage.RealmDomain, error) {
	var rd storage.RealmDomain
	err := sc.Scan(&rd.ID, &rd.RealmID, &rd.Domain, d.Bool(&rd.AllowSubdomains))
	return rd, err
}

// Attachment reads the columns of SelectAttachment.
func Attachment(_ Dialect, sc Scanner) (storage.Attachment, error) {
	var (
		a       storage.Attachment
		created int64
	)
	err := sc.Scan(&a.ID, &a.RealmID, &a.OwnerID, &a.PathID, &a.Name, &a.Size, &a.ContentType, &created)
	a.CreateTime = FromNanos(created)
	return a, err
}

// Device reads the columns of SelectDevice.
func Device(_ Dialect, sc Scanner) (storage.Device, error) {
	var (
		d              storage.Device
		keyID, created int64
	)
	err := sc.Scan(&d.ID, &d.UserID, &d.RealmID, &d.PushKey, &keyID, &d.TokenKind, &d.TokenID,
		&d.BouncerPublicKey, &d.EncryptedPushRegistration, &created)
	d.PushKeyID = uint32(keyID)
	d.CreateTime = FromNanos(created)
	return d, err
}

// Presence reads the columns of SelectPresence.
func Presence(_ Dialect, sc Scanner) (storage.Presence, error) {
	var (
		p                 storage.Presence
		active, connected int64
	)
	err := sc.Scan(&p.UserID, &p.RealmID, &active, &connected, &p.UpdateID)
	p.LastActive, p.LastConnected = FromNanos(active), FromNanos(connected)
	return p, err
}
