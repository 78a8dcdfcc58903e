package storagetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

func (s *suite) testUserIDs(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
	})
	// User IDs are global: users of both realms share one sequence.
	want := int64(1)
	for _, batch := range [][]int64{{r1.ID, r2.ID, r1.ID}, {r2.ID, r1.ID}} {
		update(t, st, func(tx storage.Tx) {
			for _, realmID := range batch {
				u := userN(realmID, int(want))
				if err := tx.CreateUser(&u); err != nil {
					t.Fatalf("CreateUser: %v", err)
				}
				if u.ID != want {
					t.Errorf("user %d of a new store got ID %d, want %d", want, u.ID, want)
				}
				want++
			}
		})
	}
	view(t, st, func(tx storage.Tx) {
		for id := int64(1); id < want; id++ {
			u := mustUser(t, tx, id)
			if u.ID != id || u.FullName != userN(0, int(id)).FullName {
				t.Errorf("User(%d) = ID %d, name %q; want user number %d", id, u.ID, u.FullName, id)
			}
		}
	})
}

func (s *suite) testUserRoundTrip(t *testing.T) {
	st := s.store(t)
	var realm, other storage.Realm
	var owner, bot, human, stranger storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		realm = createRealm(t, tx, realmN(1))
		other = createRealm(t, tx, realmN(2))
		owner = userN(realm.ID, 1)
		owner.Role = storage.RoleOwner
		owner.LastLogin = t0.Add(time.Hour + 1)
		owner = createUser(t, tx, owner)

		// The bot has every field set; CreateUser must only set the ID.
		want := fullBot(realm.ID, owner.ID)
		bot = want
		if err := tx.CreateUser(&bot); err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		want.ID = bot.ID
		if bot != want {
			t.Errorf("CreateUser changed fields other than ID: got %#v, want %#v", bot, want)
		}

		// A human who never logged in: zero LastLogin, zero BotOwnerID,
		// empty password hash, false booleans.
		human = storage.UserRecord{
			RealmID:         realm.ID,
			Email:           "never@example.com",
			Role:            storage.RoleGuest,
			DateJoined:      t0,
			APIKey:          "human-key",
			EmailVisibility: storage.EmailVisibleEveryone,
		}
		human = createUser(t, tx, human)
		stranger = createUser(t, tx, userN(other.ID, 1))
	})
	check := func(tx storage.Tx, when string) {
		t.Helper()
		for _, u := range []storage.UserRecord{owner, bot, human, stranger} {
			checkUser(t, when+": User", mustUser(t, tx, u.ID), u)
			checkUser(t, when+": UserByEmail", mustUserByEmail(t, tx, u.RealmID, u.Email), u)
			checkUser(t, when+": UserByAPIKey", mustUserByAPIKey(t, tx, u.APIKey), u)
			checkUsers(t, when+": Users(realm, [id])", mustUsers(t, tx, u.RealmID, []int64{u.ID}), []storage.UserRecord{u})
			checkUsers(t, when+": UsersByRole", mustUsersByRole(t, tx, u.RealmID, u.Role), []storage.UserRecord{u})
		}
		checkUsers(t, when+": Users(realm, nil)", mustUsers(t, tx, realm.ID, nil), []storage.UserRecord{owner, bot, human})
		checkUsers(t, when+": Users(other realm, nil)", mustUsers(t, tx, other.ID, nil), []storage.UserRecord{stranger})
		checkUsers(t, when+": BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{bot})
	}
	update(t, st, func(tx storage.Tx) { check(tx, "same transaction") })
	view(t, st, func(tx storage.Tx) { check(tx, "after commit") })
}

func (s *suite) testUpdateUser(t *testing.T) {
	st := s.store(t)
	var realm storage.Realm
	var owner, u, bystander storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		realm = createRealm(t, tx, realmN(1))
		owner = createUser(t, tx, userN(realm.ID, 1))
		u = createUser(t, tx, userN(realm.ID, 2))
		bystander = createUser(t, tx, userN(realm.ID, 3))
	})
	old := u
	// Every field but ID and RealmID changes.
	changed := storage.UserRecord{
		ID:              u.ID,
		RealmID:         u.RealmID,
		Email:           "Changed@Elsewhere.org",
		FullName:        "Changed Name",
		Role:            storage.RoleAdmin,
		IsActive:        false,
		BotType:         storage.BotEmbedded,
		BotOwnerID:      owner.ID,
		DateJoined:      t0.Add(2*time.Hour + 3),
		LastLogin:       t0.Add(5*time.Hour + 9),
		IsImportedStub:  true,
		Timezone:        "Asia/Kolkata",
		AvatarSource:    "U",
		AvatarVersion:   3,
		APIKey:          "changed-key",
		PasswordHash:    "",
		EmailVisibility: storage.EmailVisibleModerators,
	}
	check := func(tx storage.Tx, when string, want storage.UserRecord) {
		t.Helper()
		checkUser(t, when+": User", mustUser(t, tx, want.ID), want)
		checkUser(t, when+": UserByEmail(new)", mustUserByEmail(t, tx, realm.ID, want.Email), want)
		checkUser(t, when+": UserByAPIKey(new)", mustUserByAPIKey(t, tx, want.APIKey), want)
		if storage.EmailKey(want.Email) != storage.EmailKey(old.Email) {
			_, err := tx.UserByEmail(realm.ID, old.Email)
			checkErr(t, when+": UserByEmail(old)", err, storage.ErrNotFound)
		}
		if want.APIKey != old.APIKey {
			_, err := tx.UserByAPIKey(old.APIKey)
			checkErr(t, when+": UserByAPIKey(old)", err, storage.ErrNotFound)
		}
		checkUsers(t, when+": Users", mustUsers(t, tx, realm.ID, nil), []storage.UserRecord{owner, want, bystander})
		checkUsers(t, when+": UsersByRole(new role)", mustUsersByRole(t, tx, realm.ID, want.Role), []storage.UserRecord{want})
		checkUser(t, when+": bystander", mustUser(t, tx, bystander.ID), bystander)
	}
	update(t, st, func(tx storage.Tx) {
		mustUpdateUser(t, tx, changed)
		check(tx, "same transaction", changed)
		checkUsers(t, "same transaction: UsersByRole(old role)", mustUsersByRole(t, tx, realm.ID, storage.RoleMember), []storage.UserRecord{owner, bystander})
		checkUsers(t, "same transaction: BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{changed})
	})
	view(t, st, func(tx storage.Tx) {
		check(tx, "after commit", changed)
		checkUsers(t, "after commit: BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{changed})
	})

	// Back to a human with zero LastLogin: zero values round-trip on update
	// too, and the old email and key are free for others.
	back := changed
	back.BotType, back.BotOwnerID, back.LastLogin, back.IsImportedStub = storage.BotNone, 0, time.Time{}, false
	update(t, st, func(tx storage.Tx) {
		mustUpdateUser(t, tx, back)
		reuse := userN(realm.ID, 4)
		reuse.Email, reuse.APIKey = old.Email, old.APIKey
		createUser(t, tx, reuse)
	})
	view(t, st, func(tx storage.Tx) {
		checkUser(t, "after second update: User", mustUser(t, tx, back.ID), back)
		checkUsers(t, "after second update: BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), nil)
	})
}

func (s *suite) testTimes(t *testing.T) {
	st := s.store(t)
	now := time.Now().UTC().Round(0)
	times := []time.Time{
		now,
		{},
		t0,
		time.Date(2000, time.January, 1, 0, 0, 0, 1, time.UTC),
		time.Date(1969, time.December, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2100, time.February, 28, 23, 59, 59, 999999999, time.UTC),
	}
	type pair struct {
		realm storage.Realm
		user  storage.UserRecord
	}
	var created []pair
	update(t, st, func(tx storage.Tx) {
		for i, tm := range times {
			r := realmN(i)
			r.DateCreated = tm
			r = createRealm(t, tx, r)
			u := userN(r.ID, i)
			u.DateJoined = tm
			u.LastLogin = times[len(times)-1-i]
			created = append(created, pair{r, createUser(t, tx, u)})
		}
	})
	view(t, st, func(tx storage.Tx) {
		for _, p := range created {
			checkRealm(t, fmt.Sprintf("realm with DateCreated %v", p.realm.DateCreated), mustRealm(t, tx, p.realm.ID), p.realm)
			got := mustUser(t, tx, p.user.ID)
			checkUser(t, fmt.Sprintf("user with DateJoined %v, LastLogin %v", p.user.DateJoined, p.user.LastLogin), got, p.user)
			if p.user.LastLogin.IsZero() && !got.LastLogin.IsZero() {
				t.Errorf("zero LastLogin read back as %v", got.LastLogin)
			}
		}
	})
}

func (s *suite) testNotFound(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		u = createUser(t, tx, userN(r1.ID, 1))
	})
	check := func(tx storage.Tx, when string) {
		t.Helper()
		_, err := tx.Realm(999)
		checkErr(t, when+": Realm(999)", err, storage.ErrNotFound)
		_, err = tx.Realm(0)
		checkErr(t, when+": Realm(0)", err, storage.ErrNotFound)
		_, err = tx.RealmByHost("nowhere.example.com")
		checkErr(t, when+": RealmByHost(unknown)", err, storage.ErrNotFound)
		_, err = tx.RealmByHost("")
		checkErr(t, when+": RealmByHost(\"\")", err, storage.ErrNotFound)
		_, err = tx.User(999)
		checkErr(t, when+": User(999)", err, storage.ErrNotFound)
		_, err = tx.User(0)
		checkErr(t, when+": User(0)", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(r1.ID, "nobody@example.com")
		checkErr(t, when+": UserByEmail(unknown email)", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(r2.ID, u.Email)
		checkErr(t, when+": UserByEmail(email of another realm)", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(999, u.Email)
		checkErr(t, when+": UserByEmail(unknown realm)", err, storage.ErrNotFound)
		_, err = tx.UserByAPIKey("no-such-key")
		checkErr(t, when+": UserByAPIKey(unknown)", err, storage.ErrNotFound)
		_, err = tx.UserByAPIKey(u.APIKey + "x")
		checkErr(t, when+": UserByAPIKey(prefix of key)", err, storage.ErrNotFound)
	}
	update(t, st, func(tx storage.Tx) {
		check(tx, "Update")
		r := realmN(3)
		r.ID = 999
		checkErr(t, "UpdateRealm(999)", tx.UpdateRealm(r), storage.ErrNotFound)
		// Unknown ID and a taken host: either error will do, but nothing
		// may be stored.
		r.Host = r2.Host
		if err := tx.UpdateRealm(r); err == nil {
			t.Errorf("UpdateRealm(999 with a taken host) succeeded")
		}
		nu := userN(r1.ID, 5)
		nu.ID = 999
		checkErr(t, "UpdateUser(999)", tx.UpdateUser(nu), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		check(tx, "View")
		checkRealms(t, "Realms after failed updates", mustRealms(t, tx), []storage.Realm{r1, r2})
		checkUsers(t, "Users after failed updates", mustUsers(t, tx, r1.ID, nil), []storage.UserRecord{u})
		_, err := tx.User(999)
		checkErr(t, "User(999) after UpdateUser(999)", err, storage.ErrNotFound)
	})
}

func (s *suite) testExistsEmail(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var a, b, a2 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		a = userN(r1.ID, 1)
		a.Email = "A@x.com"
		a = createUser(t, tx, a)
		b = createUser(t, tx, userN(r1.ID, 2))
	})
	update(t, st, func(tx storage.Tx) {
		dup := userN(r1.ID, 3)
		dup.Email = "a@X.com"
		checkErr(t, "CreateUser(same email, other case, same realm)", tx.CreateUser(&dup), storage.ErrExists)
		dup.Email = "A@x.com"
		checkErr(t, "CreateUser(same email, same realm)", tx.CreateUser(&dup), storage.ErrExists)

		// The same address is a different account in another realm.
		a2 = userN(r2.ID, 1)
		a2.Email = "a@X.com"
		a2 = createUser(t, tx, a2)

		taken := b
		taken.Email = "a@x.COM"
		taken.FullName = "must not be stored"
		checkErr(t, "UpdateUser(email of another user, other case)", tx.UpdateUser(taken), storage.ErrExists)

		// Changing the case of one's own address is no collision.
		a.Email = "a@x.com"
		mustUpdateUser(t, tx, a)
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "Users(r1)", mustUsers(t, tx, r1.ID, nil), []storage.UserRecord{a, b})
		checkUsers(t, "Users(r2)", mustUsers(t, tx, r2.ID, nil), []storage.UserRecord{a2})
		for _, e := range []string{"A@X.COM", "a@x.com", "A@x.com"} {
			checkUser(t, "UserByEmail(r1, "+e+")", mustUserByEmail(t, tx, r1.ID, e), a)
			checkUser(t, "UserByEmail(r2, "+e+")", mustUserByEmail(t, tx, r2.ID, e), a2)
		}
		checkUser(t, "UserByEmail(b)", mustUserByEmail(t, tx, r1.ID, b.Email), b)
	})
}

func (s *suite) testExistsAPIKey(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var a, b storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		a = createUser(t, tx, userN(r1.ID, 1))
		b = createUser(t, tx, userN(r1.ID, 2))
	})
	update(t, st, func(tx storage.Tx) {
		// API keys are unique across realms.
		dup := userN(r2.ID, 3)
		dup.APIKey = a.APIKey
		checkErr(t, "CreateUser(API key of a user of another realm)", tx.CreateUser(&dup), storage.ErrExists)
		dup.RealmID = r1.ID
		checkErr(t, "CreateUser(API key of a user of the same realm)", tx.CreateUser(&dup), storage.ErrExists)

		taken := b
		taken.APIKey = a.APIKey
		taken.FullName = "must not be stored"
		checkErr(t, "UpdateUser(API key of another user)", tx.UpdateUser(taken), storage.ErrExists)

		// Keeping one's own key is no collision.
		b.FullName = "Renamed"
		mustUpdateUser(t, tx, b)
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "Users(r1)", mustUsers(t, tx, r1.ID, nil), []storage.UserRecord{a, b})
		checkUsers(t, "Users(r2)", mustUsers(t, tx, r2.ID, nil), nil)
		checkUser(t, "UserByAPIKey(a)", mustUserByAPIKey(t, tx, a.APIKey), a)
		checkUser(t, "UserByAPIKey(b)", mustUserByAPIKey(t, tx, b.APIKey), b)
		_, err := tx.UserByEmail(r2.ID, userN(r2.ID, 3).Email)
		checkErr(t, "UserByEmail(user whose create failed)", err, storage.ErrNotFound)
	})
}

func (s *suite) testUsersAll(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var in1, in2 []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i := 1; i <= 12; i++ {
			// Interleave the realms so their IDs interleave.
			if i%3 == 0 {
				in2 = append(in2, createUser(t, tx, userN(r2.ID, i)))
			} else {
				in1 = append(in1, createUser(t, tx, userN(r1.ID, i)))
			}
		}
	})
	// Updates must not reorder users, even when the email, key and role
	// change.
	update(t, st, func(tx storage.Tx) {
		in1[0].Email, in1[0].APIKey, in1[0].Role = "zzz@example.com", "zzz", storage.RoleGuest
		mustUpdateUser(t, tx, in1[0])
		in1[3].IsActive = false
		mustUpdateUser(t, tx, in1[3])
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "Users(r1, nil)", mustUsers(t, tx, r1.ID, nil), in1)
		checkUsers(t, "Users(r2, nil)", mustUsers(t, tx, r2.ID, nil), in2)
		checkUsers(t, "Users(unknown realm, nil)", mustUsers(t, tx, 999, nil), nil)
	})
	update(t, st, func(tx storage.Tx) {
		// Users created in the transaction are listed after the others.
		in1 = append(in1, createUser(t, tx, userN(r1.ID, 100)))
		checkUsers(t, "Users(r1, nil) in the writing transaction", mustUsers(t, tx, r1.ID, nil), in1)
	})
}

func (s *suite) testUsersIDs(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var in1, in2 []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i := 1; i <= 10; i++ {
			if i%2 == 0 {
				in2 = append(in2, createUser(t, tx, userN(r2.ID, i)))
			} else {
				in1 = append(in1, createUser(t, tx, userN(r1.ID, i)))
			}
		}
	})
	// in1 holds IDs 1,3,5,7,9 and in2 2,4,6,8,10.
	cases := []struct {
		name  string
		realm int64
		ids   []int64
		want  []storage.UserRecord
	}{
		{"one", r1.ID, []int64{in1[2].ID}, in1[2:3]},
		{"unsorted", r1.ID, []int64{in1[4].ID, in1[0].ID, in1[2].ID}, []storage.UserRecord{in1[0], in1[2], in1[4]}},
		{"duplicates", r1.ID, []int64{in1[1].ID, in1[1].ID, in1[0].ID, in1[1].ID}, in1[0:2]},
		{"unknown IDs", r1.ID, []int64{999, in1[3].ID, -1, 0, 1 << 40}, in1[3:4]},
		{"IDs of another realm", r1.ID, []int64{in2[0].ID, in1[0].ID, in2[4].ID}, in1[0:1]},
		{"only IDs of another realm", r1.ID, []int64{in2[0].ID, in2[1].ID}, nil},
		{"all mixed", r2.ID, []int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 42}, in2},
		{"empty, not nil", r1.ID, []int64{}, nil},
		{"unknown realm", 999, []int64{in1[0].ID}, nil},
	}
	for _, c := range cases {
		view(t, st, func(tx storage.Tx) {
			ids := slices.Clone(c.ids)
			got := mustUsers(t, tx, c.realm, ids)
			checkUsers(t, fmt.Sprintf("%s: Users(%d, %v)", c.name, c.realm, c.ids), got, c.want)
			if !slices.Equal(ids, c.ids) {
				t.Errorf("%s: Users modified its ids argument: %v, was %v", c.name, ids, c.ids)
			}
		})
	}
	// A long list (longer than SQL's usual bound-parameter limits) of mostly
	// unknown IDs.
	view(t, st, func(tx storage.Tx) {
		ids := make([]int64, 0, 40010)
		for id := int64(40000); id > 0; id-- {
			ids = append(ids, id)
		}
		got := mustUsers(t, tx, r2.ID, ids)
		checkUsers(t, "Users(r2, 40000 IDs)", got, in2)
	})
}

func (s *suite) testActiveUserIDs(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var in1, in2 []int64
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i := 1; i <= 6; i++ {
			u := userN(r1.ID, i)
			// The second and fourth users of realm 1 are deactivated.
			u.IsActive = i != 2 && i != 4
			in1 = append(in1, createUser(t, tx, u).ID)
			in2 = append(in2, createUser(t, tx, userN(r2.ID, 10+i)).ID)
		}
	})
	cases := []struct {
		name  string
		realm int64
		ids   []int64
		want  []int64
	}{
		{"all, unsorted, repeated", r1.ID, []int64{in1[5], in1[0], in1[1], in1[0], in1[3], in1[2], in1[4]},
			[]int64{in1[0], in1[2], in1[4], in1[5]}},
		{"only deactivated", r1.ID, []int64{in1[1], in1[3]}, []int64{}},
		{"unknown and other realm", r1.ID, []int64{999999, in2[0], in1[2], -1}, []int64{in1[2]}},
		{"empty", r1.ID, []int64{}, []int64{}},
		{"nil", r1.ID, nil, []int64{}},
		{"unknown realm", 999999, []int64{in1[0]}, []int64{}},
	}
	for _, c := range cases {
		view(t, st, func(tx storage.Tx) {
			ids := slices.Clone(c.ids)
			got, err := tx.ActiveUserIDs(c.realm, ids)
			if err != nil {
				t.Fatalf("%s: ActiveUserIDs: %v", c.name, err)
			}
			if got == nil || !slices.Equal(got, c.want) {
				t.Errorf("%s: ActiveUserIDs(%d, %v) = %#v, want %v", c.name, c.realm, c.ids, got, c.want)
			}
			if !slices.Equal(ids, c.ids) {
				t.Errorf("%s: ActiveUserIDs modified its ids argument", c.name)
			}
		})
	}
	// Deactivation is seen in the same transaction.
	update(t, st, func(tx storage.Tx) {
		u := mustUsers(t, tx, r2.ID, in2[:1])[0]
		u.IsActive = false
		if err := tx.UpdateUser(u); err != nil {
			t.Fatal(err)
		}
		got, err := tx.ActiveUserIDs(r2.ID, in2[:2])
		if err != nil || !slices.Equal(got, in2[1:2]) {
			t.Errorf("after deactivation: ActiveUserIDs = %v, %v; want %v", got, err, in2[1:2])
		}
	})
}

func (s *suite) testUsersByRole(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	byRole := map[storage.Role][]storage.UserRecord{}
	var otherMembers []storage.UserRecord
	roles := []storage.Role{storage.RoleMember, storage.RoleOwner, storage.RoleGuest, storage.RoleMember, storage.RoleAdmin, storage.RoleOwner, storage.RoleMember}
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i, role := range roles {
			u := userN(r1.ID, i)
			u.Role = role
			u.IsActive = i%2 == 0 // inactive users are listed too
			if i == 2 {
				u.BotType, u.BotOwnerID = storage.BotGeneric, 1 // and bots
			}
			byRole[role] = append(byRole[role], createUser(t, tx, u))
			if i%3 == 0 {
				otherMembers = append(otherMembers, createUser(t, tx, userN(r2.ID, i)))
			}
		}
	})
	view(t, st, func(tx storage.Tx) {
		for _, role := range []storage.Role{storage.RoleOwner, storage.RoleAdmin, storage.RoleModerator, storage.RoleMember, storage.RoleGuest} {
			checkUsers(t, fmt.Sprintf("UsersByRole(r1, %d)", role), mustUsersByRole(t, tx, r1.ID, role), byRole[role])
		}
		checkUsers(t, "UsersByRole(r2, member)", mustUsersByRole(t, tx, r2.ID, storage.RoleMember), otherMembers)
		checkUsers(t, "UsersByRole(r2, owner)", mustUsersByRole(t, tx, r2.ID, storage.RoleOwner), nil)
		checkUsers(t, "UsersByRole(unknown realm, member)", mustUsersByRole(t, tx, 999, storage.RoleMember), nil)
	})
	// A role change moves the user between lists, keeping ID order.
	update(t, st, func(tx storage.Tx) {
		u := byRole[storage.RoleMember][0]
		u.Role = storage.RoleOwner
		mustUpdateUser(t, tx, u)
		byRole[storage.RoleMember] = byRole[storage.RoleMember][1:]
		byRole[storage.RoleOwner] = sortedByID(append([]storage.UserRecord{u}, byRole[storage.RoleOwner]...))
		checkUsers(t, "UsersByRole(r1, owner) after promotion", mustUsersByRole(t, tx, r1.ID, storage.RoleOwner), byRole[storage.RoleOwner])
		checkUsers(t, "UsersByRole(r1, member) after promotion", mustUsersByRole(t, tx, r1.ID, storage.RoleMember), byRole[storage.RoleMember])
	})
}

func (s *suite) testBotsOwnedBy(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var o1, o2, lonely storage.UserRecord
	var bots1, bots2 []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		o1 = createUser(t, tx, userN(r1.ID, 1))
		o2 = createUser(t, tx, userN(r1.ID, 2))
		lonely = createUser(t, tx, userN(r1.ID, 3))
		createUser(t, tx, userN(r2.ID, 1))
		for i := 10; i < 16; i++ {
			b := userN(r1.ID, i)
			b.BotType = storage.BotType(1 + i%4)
			switch i % 3 {
			case 0:
				b.BotOwnerID = o1.ID
				b.IsActive = i != 12 // deactivated bots are listed too
				bots1 = append(bots1, createUser(t, tx, b))
			case 1:
				b.BotOwnerID = o2.ID
				bots2 = append(bots2, createUser(t, tx, b))
			default:
				// A legacy bot without owner.
				createUser(t, tx, b)
			}
		}
		// A human whose BotOwnerID is set is not a bot.
		h := userN(r1.ID, 20)
		h.BotOwnerID = o1.ID
		createUser(t, tx, h)
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "BotsOwnedBy(o1)", mustBotsOwnedBy(t, tx, o1.ID), bots1)
		checkUsers(t, "BotsOwnedBy(o2)", mustBotsOwnedBy(t, tx, o2.ID), bots2)
		checkUsers(t, "BotsOwnedBy(user without bots)", mustBotsOwnedBy(t, tx, lonely.ID), nil)
		checkUsers(t, "BotsOwnedBy(a bot)", mustBotsOwnedBy(t, tx, bots1[0].ID), nil)
		checkUsers(t, "BotsOwnedBy(unknown user)", mustBotsOwnedBy(t, tx, 999), nil)
		checkUsers(t, "BotsOwnedBy(0), which owns nothing", mustBotsOwnedBy(t, tx, 0), nil)
	})
	// Handing a bot over moves it between lists.
	update(t, st, func(tx storage.Tx) {
		b := bots1[0]
		b.BotOwnerID = o2.ID
		mustUpdateUser(t, tx, b)
		checkUsers(t, "BotsOwnedBy(o1) after hand-over", mustBotsOwnedBy(t, tx, o1.ID), bots1[1:])
		checkUsers(t, "BotsOwnedBy(o2) after hand-over", mustBotsOwnedBy(t, tx, o2.ID), sortedByID(append([]storage.UserRecord{b}, bots2...)))
	})
}

// testUserAndRealm checks storage.UserAndRealm (a backend's own
// UserAndRealmTx where it has one) against User and Realm: in a View, in
// an Update after changes to both rows, and for an unknown user.
func (s *suite) testUserAndRealm(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var u1, u2 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		createUser(t, tx, userN(r1.ID, 1))
		u1 = createUser(t, tx, fullBot(r1.ID, 1))
		u2 = createUser(t, tx, userN(r2.ID, 2))
	})
	view(t, st, func(tx storage.Tx) {
		for _, c := range []struct {
			u storage.UserRecord
			r storage.Realm
		}{{u1, r1}, {u2, r2}} {
			u, r, err := storage.UserAndRealm(tx, c.u.ID)
			if err != nil {
				t.Fatalf("UserAndRealm(%d): %v", c.u.ID, err)
			}
			checkUser(t, "UserAndRealm: the user", u, mustUser(t, tx, c.u.ID))
			checkRealm(t, "UserAndRealm: the realm", r, mustRealm(t, tx, c.r.ID))
		}
		_, _, err := storage.UserAndRealm(tx, 999)
		checkErr(t, "UserAndRealm(unknown user)", err, storage.ErrNotFound)
	})
	update(t, st, func(tx storage.Tx) {
		u := mustUser(t, tx, u2.ID)
		u.FullName, u.IsActive = "Changed", false
		mustUpdateUser(t, tx, u)
		r := mustRealm(t, tx, r2.ID)
		r.Name, r.Deactivated = "Changed realm", !r.Deactivated
		mustUpdateRealm(t, tx, r)
		gotU, gotR, err := storage.UserAndRealm(tx, u2.ID)
		if err != nil {
			t.Fatalf("UserAndRealm in the transaction: %v", err)
		}
		checkUser(t, "UserAndRealm after the transaction's change: the user", gotU, mustUser(t, tx, u2.ID))
		checkRealm(t, "UserAndRealm after the transaction's change: the realm", gotR, mustRealm(t, tx, r2.ID))
	})
	view(t, st, func(tx storage.Tx) {
		gotU, gotR, err := storage.UserAndRealm(tx, u2.ID)
		if err != nil {
			t.Fatalf("UserAndRealm after the commit: %v", err)
		}
		checkUser(t, "UserAndRealm after the commit: the user", gotU, mustUser(t, tx, u2.ID))
		checkRealm(t, "UserAndRealm after the commit: the realm", gotR, mustRealm(t, tx, r2.ID))
		if gotU.FullName != "Changed" || gotR.Name != "Changed realm" {
			t.Errorf("UserAndRealm after the commit: %q of %q, want the changed names", gotU.FullName, gotR.Name)
		}
	})
}
