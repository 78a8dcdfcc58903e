package storagetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

func (s *suite) testViewReadOnly(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
	})
	view(t, st, func(tx storage.Tx) {
		nr := realmN(2)
		checkErr(t, "CreateRealm in View", tx.CreateRealm(&nr), storage.ErrReadOnly)
		cr := r
		cr.Name = "changed"
		checkErr(t, "UpdateRealm in View", tx.UpdateRealm(cr), storage.ErrReadOnly)
		nu := userN(r.ID, 2)
		checkErr(t, "CreateUser in View", tx.CreateUser(&nu), storage.ErrReadOnly)
		cu := u
		cu.FullName = "changed"
		checkErr(t, "UpdateUser in View", tx.UpdateUser(cu), storage.ErrReadOnly)
		// Reads still work after the refused writes.
		checkRealm(t, "Realm after refused writes", mustRealm(t, tx, r.ID), r)
	})
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms", mustRealms(t, tx), []storage.Realm{r})
		checkUsers(t, "Users", mustUsers(t, tx, r.ID, nil), []storage.UserRecord{u})
		_, err := tx.RealmByHost(realmN(2).Host)
		checkErr(t, "RealmByHost(realm created in View)", err, storage.ErrNotFound)
	})
}

func (s *suite) testViewError(t *testing.T) {
	st := s.store(t)
	err := st.View(context.Background(), func(tx storage.Tx) error {
		return fmt.Errorf("wrapped: %w", errTest)
	})
	checkErr(t, "View whose fn fails", err, errTest)
}

func (s *suite) testViewSnapshot(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
	})
	done := make(chan error, 1)
	view(t, st, func(tx storage.Tx) {
		before := mustRealm(t, tx, r.ID)
		go func() {
			done <- st.Update(context.Background(), func(tx storage.Tx) error {
				r2 := r
				r2.Name = "changed"
				if err := tx.UpdateRealm(r2); err != nil {
					return err
				}
				u2 := u
				u2.FullName = "changed"
				if err := tx.UpdateUser(u2); err != nil {
					return err
				}
				nr := realmN(2)
				if err := tx.CreateRealm(&nr); err != nil {
					return err
				}
				nu := userN(r.ID, 2)
				return tx.CreateUser(&nu)
			})
		}()
		// Either the Update waits for this View, or it commits while the
		// View runs; both are fine, but the View must not see it.
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("concurrent Update: %v", err)
			}
			done <- nil
		case <-time.After(200 * time.Millisecond):
		}
		checkRealm(t, "Realm read again in the same View", mustRealm(t, tx, r.ID), before)
		checkRealms(t, "Realms in the same View", mustRealms(t, tx), []storage.Realm{r})
		checkUser(t, "User in the same View", mustUser(t, tx, u.ID), u)
		checkUsers(t, "Users in the same View", mustUsers(t, tx, r.ID, nil), []storage.UserRecord{u})
	})
	if err := <-done; err != nil {
		t.Fatalf("concurrent Update: %v", err)
	}
	view(t, st, func(tx storage.Tx) {
		if got := mustRealm(t, tx, r.ID); got.Name != "changed" {
			t.Errorf("a View after the Update sees realm name %q, want %q", got.Name, "changed")
		}
		if got := mustUsers(t, tx, r.ID, nil); len(got) != 2 {
			t.Errorf("a View after the Update sees %d users, want 2", len(got))
		}
	})
}

func (s *suite) testReadYourWrites(t *testing.T) {
	st := s.store(t)
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		checkRealm(t, "Realm", mustRealm(t, tx, r.ID), r)
		checkRealm(t, "RealmByHost", mustRealmByHost(t, tx, r.Host), r)
		checkRealms(t, "Realms", mustRealms(t, tx), []storage.Realm{r})
		owner := userN(r.ID, 1)
		owner.Role = storage.RoleOwner
		owner = createUser(t, tx, owner)
		bot := fullBot(r.ID, owner.ID)
		bot = createUser(t, tx, bot)
		checkUser(t, "User", mustUser(t, tx, owner.ID), owner)
		checkUser(t, "UserByEmail", mustUserByEmail(t, tx, r.ID, owner.Email), owner)
		checkUser(t, "UserByAPIKey", mustUserByAPIKey(t, tx, owner.APIKey), owner)
		checkUsers(t, "Users", mustUsers(t, tx, r.ID, nil), []storage.UserRecord{owner, bot})
		checkUsers(t, "Users(ids)", mustUsers(t, tx, r.ID, []int64{bot.ID}), []storage.UserRecord{bot})
		checkUsers(t, "UsersByRole", mustUsersByRole(t, tx, r.ID, storage.RoleOwner), []storage.UserRecord{owner})
		checkUsers(t, "BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{bot})
		// A check-then-write inside one transaction sees the write.
		dup := userN(r.ID, 1)
		dup.APIKey = "other"
		checkErr(t, "CreateUser(email created in the same transaction)", tx.CreateUser(&dup), storage.ErrExists)
	})
}

func (s *suite) testCommit(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
	})
	view(t, st, func(tx storage.Tx) {
		checkRealm(t, "Realm after commit", mustRealm(t, tx, r.ID), r)
		checkUser(t, "User after commit", mustUser(t, tx, u.ID), u)
	})
	update(t, st, func(tx storage.Tx) {
		checkRealm(t, "Realm in the next Update", mustRealm(t, tx, r.ID), r)
		u.LastLogin = t0.Add(time.Hour)
		mustUpdateUser(t, tx, u)
	})
	view(t, st, func(tx storage.Tx) {
		checkUser(t, "User after second commit", mustUser(t, tx, u.ID), u)
	})
}

// rollbackFixture is committed state that a failing transaction modifies.
type rollbackFixture struct {
	r1      storage.Realm
	u1, u2  storage.UserRecord
	maxID   int64
	newHost string
	newUser storage.UserRecord
}

func setupRollback(t *testing.T, st storage.Store) *rollbackFixture {
	t.Helper()
	f := &rollbackFixture{newHost: "rolled-back.example.com"}
	update(t, st, func(tx storage.Tx) {
		f.r1 = createRealm(t, tx, realmN(1))
		f.u1 = createUser(t, tx, userN(f.r1.ID, 1))
		f.u2 = createUser(t, tx, userN(f.r1.ID, 2))
	})
	f.maxID = f.u2.ID
	f.newUser = userN(f.r1.ID, 3)
	return f
}

// writeAll makes every kind of write, checking that the transaction sees
// them.
func (f *rollbackFixture) writeAll(t *testing.T, tx storage.Tx) {
	t.Helper()
	r2 := createRealm(t, tx, storage.Realm{Name: "New", Host: f.newHost})
	r1 := f.r1
	r1.Name, r1.Host, r1.Deactivated = "Changed", "changed.example.com", true
	mustUpdateRealm(t, tx, r1)
	u3 := createUser(t, tx, f.newUser)
	createUser(t, tx, userN(r2.ID, 4))
	u1 := f.u1
	u1.Email, u1.APIKey, u1.Role, u1.LastLogin = "changed@example.com", "changed-key", storage.RoleOwner, t0
	mustUpdateUser(t, tx, u1)
	checkUser(t, "new user inside the transaction", mustUser(t, tx, u3.ID), u3)
	checkUser(t, "changed user inside the transaction", mustUserByAPIKey(t, tx, "changed-key"), u1)
	if got := mustRealms(t, tx); len(got) != 2 {
		t.Errorf("Realms inside the transaction: got %d, want 2", len(got))
	}
}

// checkRolledBack checks that nothing of writeAll is left, and that the
// freed keys can be used again.
func (f *rollbackFixture) checkRolledBack(t *testing.T, st storage.Store) {
	t.Helper()
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after rollback", mustRealms(t, tx), []storage.Realm{f.r1})
		checkRealm(t, "RealmByHost(old host) after rollback", mustRealmByHost(t, tx, f.r1.Host), f.r1)
		for _, host := range []string{f.newHost, "changed.example.com"} {
			_, err := tx.RealmByHost(host)
			checkErr(t, "RealmByHost("+host+") after rollback", err, storage.ErrNotFound)
		}
		checkUsers(t, "Users after rollback", mustUsers(t, tx, f.r1.ID, nil), []storage.UserRecord{f.u1, f.u2})
		checkUser(t, "UserByEmail(old email) after rollback", mustUserByEmail(t, tx, f.r1.ID, f.u1.Email), f.u1)
		checkUser(t, "UserByAPIKey(old key) after rollback", mustUserByAPIKey(t, tx, f.u1.APIKey), f.u1)
		checkUsers(t, "UsersByRole(owner) after rollback", mustUsersByRole(t, tx, f.r1.ID, storage.RoleOwner), nil)
		_, err := tx.User(f.maxID + 1)
		checkErr(t, "User(created, rolled back) after rollback", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(f.r1.ID, "changed@example.com")
		checkErr(t, "UserByEmail(new email) after rollback", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(f.r1.ID, f.newUser.Email)
		checkErr(t, "UserByEmail(created, rolled back) after rollback", err, storage.ErrNotFound)
		for _, key := range []string{"changed-key", f.newUser.APIKey} {
			_, err = tx.UserByAPIKey(key)
			checkErr(t, "UserByAPIKey("+key+") after rollback", err, storage.ErrNotFound)
		}
	})
	// The store stays usable (a leaked lock or connection would block
	// here), and the rolled-back keys are free.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := st.Update(ctx, func(tx storage.Tx) error {
		r := createRealm(t, tx, storage.Realm{Host: f.newHost})
		u := createUser(t, tx, f.newUser)
		if u.ID <= f.maxID {
			t.Errorf("user created after rollback got ID %d, want > %d", u.ID, f.maxID)
		}
		if r.ID <= f.r1.ID {
			t.Errorf("realm created after rollback got ID %d, want > %d", r.ID, f.r1.ID)
		}
		u1 := f.u1
		u1.Email, u1.APIKey = "changed@example.com", "changed-key"
		return tx.UpdateUser(u1)
	})
	if err != nil {
		t.Fatalf("Update after rollback: %v", err)
	}
}

func (s *suite) testRollbackOnError(t *testing.T) {
	st := s.store(t)
	f := setupRollback(t, st)
	ran := false
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		ran = true
		f.writeAll(t, tx)
		return fmt.Errorf("wrapped: %w", errTest)
	})
	if !ran {
		t.Fatal("Update did not run fn")
	}
	checkErr(t, "Update whose fn fails", err, errTest)
	f.checkRolledBack(t, st)
}

func (s *suite) testRollbackOnPanic(t *testing.T) {
	st := s.store(t)
	f := setupRollback(t, st)
	want := testPanic{"storagetest: panic in fn"}
	func() {
		defer func() {
			if got := recover(); got != want {
				t.Errorf("recovered %v, want the panic of fn %v", got, want)
			}
		}()
		err := st.Update(context.Background(), func(tx storage.Tx) error {
			f.writeAll(t, tx)
			panic(want)
		})
		t.Errorf("Update returned %v instead of panicking", err)
	}()
	f.checkRolledBack(t, st)
}

func (s *suite) testNoAliasing(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u, v storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
		v = createUser(t, tx, userN(r.ID, 2))
	})
	wantR, wantU, wantV := r, u, v

	// Values passed to the store are copied.
	r.Name, u.FullName = "mutated after create", "mutated after create"
	update(t, st, func(tx storage.Tx) {
		upd := wantV
		upd.FullName = "Updated"
		mustUpdateUser(t, tx, upd)
		wantV = upd
		upd.FullName = "mutated after update"
	})

	mutateRealms := func(rs []storage.Realm) {
		for i := range rs {
			rs[i].Name = "mutated"
			rs[i].ID = 999
		}
	}
	mutateUsers := func(us []storage.UserRecord) {
		for i := range us {
			us[i].FullName = "mutated"
			us[i].Email = "mutated@example.com"
			us[i].ID = 999
		}
	}
	check := func(tx storage.Tx, when string) {
		t.Helper()
		checkRealm(t, when+": Realm", mustRealm(t, tx, wantR.ID), wantR)
		checkRealms(t, when+": Realms", mustRealms(t, tx), []storage.Realm{wantR})
		checkUser(t, when+": User(u)", mustUser(t, tx, wantU.ID), wantU)
		checkUser(t, when+": User(v)", mustUser(t, tx, wantV.ID), wantV)
		checkUsers(t, when+": Users", mustUsers(t, tx, wantR.ID, nil), []storage.UserRecord{wantU, wantV})
	}
	mutate := func(tx storage.Tx) {
		got := mustRealm(t, tx, wantR.ID)
		got.Name = "mutated"
		byHost := mustRealmByHost(t, tx, wantR.Host)
		byHost.Name = "mutated"
		mutateRealms(mustRealms(t, tx))
		gu := mustUser(t, tx, wantU.ID)
		gu.FullName = "mutated"
		mutateUsers(mustUsers(t, tx, wantR.ID, nil))
		mutateUsers(mustUsers(t, tx, wantR.ID, []int64{wantU.ID, wantV.ID}))
		mutateUsers(mustUsersByRole(t, tx, wantR.ID, storage.RoleMember))
		// Appending to a returned slice must not show up either.
		us := mustUsers(t, tx, wantR.ID, nil)
		_ = append(us[:1], storage.UserRecord{ID: 999})
		rs := mustRealms(t, tx)
		_ = append(rs[:0], storage.Realm{ID: 999})
	}
	view(t, st, func(tx storage.Tx) {
		mutate(tx)
		check(tx, "same View")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "next View") })
	update(t, st, func(tx storage.Tx) {
		mutate(tx)
		check(tx, "same Update")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "View after Update") })
}

func (s *suite) testCanceled(t *testing.T) {
	st := s.store(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := st.View(ctx, func(storage.Tx) error { ran = true; return nil })
	checkErr(t, "View with a canceled context", err, context.Canceled)
	if ran {
		t.Error("View with a canceled context ran fn")
	}
	ran = false
	err = st.Update(ctx, func(tx storage.Tx) error {
		ran = true
		r := realmN(1)
		return tx.CreateRealm(&r)
	})
	checkErr(t, "Update with a canceled context", err, context.Canceled)
	if ran {
		t.Error("Update with a canceled context ran fn")
	}
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after canceled Update", mustRealms(t, tx), nil)
	})
}

// testCanceledWhileWaiting cancels an Update while it waits for another
// one to finish: it must not run once the other is done.
func (s *suite) testCanceledWhileWaiting(t *testing.T) {
	st := s.store(t)
	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- st.Update(context.Background(), func(storage.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	ran := make(chan bool, 1)
	go func() {
		second <- st.Update(ctx, func(tx storage.Tx) error {
			ran <- true
			r := realmN(1)
			return tx.CreateRealm(&r)
		})
	}()
	time.Sleep(50 * time.Millisecond) // let the second Update start waiting
	cancel()
	time.Sleep(50 * time.Millisecond)
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first Update: %v", err)
	}
	checkErr(t, "Update canceled while waiting", <-second, context.Canceled)
	select {
	case <-ran:
		t.Error("Update canceled while waiting ran fn")
	default:
	}
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after canceled Update", mustRealms(t, tx), nil)
	})
}

// testCanceledWhileRunning cancels an Update while fn runs, for backends
// whose Updates run side by side: it must commit nothing and report the
// cancellation.
func (s *suite) testCanceledWhileRunning(t *testing.T) {
	st := s.store(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := st.Update(ctx, func(tx storage.Tx) error {
		r := realmN(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		cancel()
		return nil
	})
	checkErr(t, "Update canceled while running", err, context.Canceled)
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after canceled Update", mustRealms(t, tx), nil)
	})
}

func (s *suite) testConcurrentCreates(t *testing.T) {
	const goroutines, perGoroutine = 8, 20
	st := s.store(t)
	var realm storage.Realm
	update(t, st, func(tx storage.Tx) { realm = createRealm(t, tx, realmN(1)) })

	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				u := userN(realm.ID, g*perGoroutine+i)
				err := st.Update(context.Background(), func(tx storage.Tx) error {
					return tx.CreateUser(&u)
				})
				if err != nil {
					t.Errorf("goroutine %d: CreateUser %d: %v", g, i, err)
					return
				}
				ids[g] = append(ids[g], u.ID)
			}
		})
		// Readers run alongside and always see an ordered list.
		wg.Go(func() {
			for range perGoroutine / 2 {
				err := st.View(context.Background(), func(tx storage.Tx) error {
					us, err := tx.Users(realm.ID, nil)
					if err != nil {
						return err
					}
					if !slices.IsSortedFunc(us, func(a, b storage.UserRecord) int { return cmp.Compare(a.ID, b.ID) }) {
						t.Errorf("concurrent View: Users not ordered by ID: %v", userIDs(us))
					}
					return nil
				})
				if err != nil {
					t.Errorf("concurrent View: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var all []int64
	for g := range ids {
		if !slices.IsSorted(ids[g]) {
			t.Errorf("goroutine %d got decreasing IDs %v", g, ids[g])
		}
		all = append(all, ids[g]...)
	}
	slices.Sort(all)
	if n := len(slices.Compact(slices.Clone(all))); n != goroutines*perGoroutine {
		t.Errorf("got %d distinct IDs, want %d: %v", n, goroutines*perGoroutine, all)
	}
	view(t, st, func(tx storage.Tx) {
		if got := userIDs(mustUsers(t, tx, realm.ID, nil)); !slices.Equal(got, all) {
			t.Errorf("Users after concurrent creates = %v, want %v", got, all)
		}
	})
}

func (s *suite) testConcurrentReadModifyWrite(t *testing.T) {
	const goroutines, perGoroutine = 8, 20
	st := s.store(t)
	var realm storage.Realm
	update(t, st, func(tx storage.Tx) {
		r := realmN(1)
		r.Description = "0"
		realm = createRealm(t, tx, r)
	})
	// Each Update increments a counter read in the same transaction: lost
	// updates mean Updates are not serialised.
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range perGoroutine {
				err := st.Update(context.Background(), func(tx storage.Tx) error {
					r, err := tx.Realm(realm.ID)
					if err != nil {
						return err
					}
					n, err := strconv.Atoi(r.Description)
					if err != nil {
						return err
					}
					runtime.Gosched() // widen the window for a lost update
					r.Description = strconv.Itoa(n + 1)
					return tx.UpdateRealm(r)
				})
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	view(t, st, func(tx storage.Tx) {
		want := strconv.Itoa(goroutines * perGoroutine)
		if got := mustRealm(t, tx, realm.ID).Description; got != want {
			t.Errorf("counter after %d increments = %s", goroutines*perGoroutine, got)
		}
	})
}

func (s *suite) testClose(t *testing.T) {
	st := s.open(t)
	update(t, st, func(tx storage.Tx) { createRealm(t, tx, realmN(1)) })
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ran := false
	if err := st.View(context.Background(), func(storage.Tx) error { ran = true; return nil }); err == nil {
		t.Error("View after Close succeeded")
	}
	if err := st.Update(context.Background(), func(storage.Tx) error { ran = true; return nil }); err == nil {
		t.Error("Update after Close succeeded")
	}
	if ran {
		t.Error("a transaction ran fn after Close")
	}
}

var errTest = errors.New("storagetest: error returned by fn")

// testPanic is the value the panicking fn panics with.
type testPanic struct{ msg string }
