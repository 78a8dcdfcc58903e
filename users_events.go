package chat

import "github.com/teamchat/chat/storage"

// emitUserAdded emits the realm_user add event of a new account to every
// active user of the realm, as the reference does when a user is created.
// The person is viewed as each recipient would see it, so those who may not
// see the new user's real address get the event without it.
func (s *Service) emitUserAdded(tx storage.Tx, emit func(Event), realm Realm, u *storage.UserRecord) error {
	users, err := tx.Users(realm.ID, nil)
	if err != nil {
		return err
	}
	// Recipients fall in two groups, by whether they see the address.
	var seeing, blind []int64
	var seer, other *viewer
	for i := range users {
		if !users[i].IsActive {
			continue
		}
		v := &viewer{user: users[i], realm: realm, emailDomain: s.emailDomain(realm),
			query: UserQuery{IncludeCustomProfileFields: true}}
		if v.canSeeEmail(u) {
			seeing, seer = append(seeing, users[i].ID), v
		} else {
			blind, other = append(blind, users[i].ID), v
		}
	}
	for _, g := range []struct {
		ids []int64
		v   *viewer
	}{{seeing, seer}, {blind, other}} {
		if len(g.ids) == 0 {
			continue
		}
		emit(Event{RealmID: realm.ID, UserIDs: g.ids, Payload: map[string]any{
			"type": "realm_user", "op": "add", "person": g.v.view(u),
		}})
	}
	return nil
}
