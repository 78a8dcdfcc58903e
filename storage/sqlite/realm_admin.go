package sqlite

import (
	"database/sql"
	"encoding/json"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Linkifiers and allowed email domains.

// linkifierArgs returns the column values of l from pattern to sort_order.
func linkifierArgs(l *storage.LinkifierRecord) ([]any, error) {
	alternatives := l.AlternativeURLTemplates
	if alternatives == nil {
		alternatives = []string{}
	}
	text, err := json.Marshal(alternatives)
	if err != nil {
		return nil, err
	}
	return []any{l.Pattern, l.URLTemplate, nullString(l.ExampleInput), nullString(l.ReverseTemplate),
		string(text), l.Order}, nil
}

func nullString(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

func (t *tx) CreateLinkifier(l *storage.LinkifierRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := linkifierArgs(l)
	if err != nil {
		return err
	}
	res, err := t.stmt(qCreateLinkifier).ExecContext(t.ctx, append([]any{l.RealmID}, args...)...)
	if err != nil {
		return t.check("CreateLinkifier", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateLinkifier", err)
	}
	l.ID = id
	return nil
}

func (t *tx) Linkifiers(realmID int64) ([]storage.LinkifierRecord, error) {
	rows, err := t.stmt(qLinkifiers).QueryContext(t.ctx, realmID)
	if err != nil {
		return nil, t.check("Linkifiers", err)
	}
	defer rows.Close()
	out := []storage.LinkifierRecord{}
	for rows.Next() {
		l, err := sqlcommon.ScanLinkifier(forms, rows)
		if err != nil {
			return nil, t.check("Linkifiers", err)
		}
		out = append(out, l)
	}
	return out, t.check("Linkifiers", rows.Err())
}

func (t *tx) UpdateLinkifier(l storage.LinkifierRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := linkifierArgs(&l)
	if err != nil {
		return err
	}
	res, err := t.stmt(qUpdateLinkifier).ExecContext(t.ctx, append(args, l.ID, l.RealmID)...)
	if err != nil {
		return t.check("UpdateLinkifier", err)
	}
	return t.affected("UpdateLinkifier", res)
}

func (t *tx) DeleteLinkifier(realmID, id int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	res, err := t.stmt(qDeleteLinkifier).ExecContext(t.ctx, realmID, id)
	if err != nil {
		return t.check("DeleteLinkifier", err)
	}
	return t.affected("DeleteLinkifier", res)
}

func (t *tx) CreateRealmDomain(d *storage.RealmDomain) error {
	if err := t.Writable(); err != nil {
		return err
	}
	res, err := t.stmt(qCreateRealmDomain).ExecContext(t.ctx, d.RealmID, d.Domain, b2i(d.AllowSubdomains))
	if err != nil {
		return t.check("CreateRealmDomain", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateRealmDomain", err)
	}
	d.ID = id
	return nil
}

func (t *tx) RealmDomains(realmID int64) ([]storage.RealmDomain, error) {
	rows, err := t.stmt(qRealmDomains).QueryContext(t.ctx, realmID)
	if err != nil {
		return nil, t.check("RealmDomains", err)
	}
	defer rows.Close()
	out := []storage.RealmDomain{}
	for rows.Next() {
		d, err := sqlcommon.ScanRealmDomain(forms, rows)
		if err != nil {
			return nil, t.check("RealmDomains", err)
		}
		out = append(out, d)
	}
	return out, t.check("RealmDomains", rows.Err())
}

func (t *tx) RealmDomain(realmID int64, domain string) (storage.RealmDomain, error) {
	d, err := sqlcommon.ScanRealmDomain(forms, t.stmt(qRealmDomain).QueryRowContext(t.ctx, realmID, domain))
	return d, t.check("RealmDomain", err)
}

func (t *tx) UpdateRealmDomain(d storage.RealmDomain) error {
	if err := t.Writable(); err != nil {
		return err
	}
	res, err := t.stmt(qUpdateRealmDomain).ExecContext(t.ctx, b2i(d.AllowSubdomains), d.RealmID, d.ID)
	if err != nil {
		return t.check("UpdateRealmDomain", err)
	}
	return t.affected("UpdateRealmDomain", res)
}

func (t *tx) DeleteRealmDomain(realmID, id int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	res, err := t.stmt(qDeleteRealmDomain).ExecContext(t.ctx, realmID, id)
	if err != nil {
		return t.check("DeleteRealmDomain", err)
	}
	return t.affected("DeleteRealmDomain", res)
}
