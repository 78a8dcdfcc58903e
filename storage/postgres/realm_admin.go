package postgres

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Linkifiers and allowed email domains.

func (t *tx) CreateLinkifier(l *storage.LinkifierRecord) error {
	id, err := t.insertID("CreateLinkifier", `INSERT INTO linkifiers (realm_id, pattern, url_template,
		example_input, reverse_template, alternative_url_templates, sort_order)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`,
		l.RealmID, l.Pattern, l.URLTemplate, l.ExampleInput, l.ReverseTemplate,
		sqlcommon.OrEmpty(l.AlternativeURLTemplates), l.Order)
	if err != nil {
		return err
	}
	l.ID = id
	return nil
}

func (t *tx) readLinkifiers(realmID int64) ([]storage.LinkifierRecord, error) {
	return list(t, "Linkifiers", sqlcommon.SelectLinkifier+`WHERE realm_id = $1 ORDER BY sort_order, id`, scanLinkifier,
		realmID)
}

func (t *tx) UpdateLinkifier(l storage.LinkifierRecord) error {
	return t.guarded("UpdateLinkifier", func() error {
		return t.execOne("UpdateLinkifier", `UPDATE linkifiers SET pattern = $1, url_template = $2,
			example_input = $3, reverse_template = $4, alternative_url_templates = $5, sort_order = $6
			WHERE id = $7 AND realm_id = $8`, l.Pattern, l.URLTemplate, l.ExampleInput, l.ReverseTemplate,
			sqlcommon.OrEmpty(l.AlternativeURLTemplates), l.Order, l.ID, l.RealmID)
	})
}

func (t *tx) DeleteLinkifier(realmID, id int64) error {
	return t.execOne("DeleteLinkifier", `DELETE FROM linkifiers WHERE realm_id = $1 AND id = $2`, realmID, id)
}

func (t *tx) CreateRealmDomain(d *storage.RealmDomain) error {
	id, err := t.insertID("CreateRealmDomain", `INSERT INTO realm_domains (realm_id, domain, allow_subdomains)
		VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id`, d.RealmID, d.Domain, d.AllowSubdomains)
	if err != nil {
		return err
	}
	d.ID = id
	return nil
}

func (t *tx) RealmDomains(realmID int64) ([]storage.RealmDomain, error) {
	return list(t, "RealmDomains", sqlcommon.SelectRealmDomain+`WHERE realm_id = $1 ORDER BY id`, scanRealmDomain, realmID)
}

func (t *tx) RealmDomain(realmID int64, domain string) (storage.RealmDomain, error) {
	return one(t, "RealmDomain", sqlcommon.SelectRealmDomain+`WHERE realm_id = $1 AND domain = $2`, scanRealmDomain,
		realmID, domain)
}

func (t *tx) UpdateRealmDomain(d storage.RealmDomain) error {
	return t.execOne("UpdateRealmDomain", `UPDATE realm_domains SET allow_subdomains = $1
		WHERE realm_id = $2 AND id = $3`, d.AllowSubdomains, d.RealmID, d.ID)
}

func (t *tx) DeleteRealmDomain(realmID, id int64) error {
	return t.execOne("DeleteRealmDomain", `DELETE FROM realm_domains WHERE realm_id = $1 AND id = $2`,
		realmID, id)
}
