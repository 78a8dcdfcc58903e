package httpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
)

// plainUser mirrors the wire user object with encoding/json tags: the
// baseline is what encoding/json alone costs for the same members.
type plainUser struct {
	UserID         int64   `json:"user_id"`
	DeliveryEmail  *string `json:"delivery_email"`
	Email          string  `json:"email"`
	FullName       string  `json:"full_name"`
	DateJoined     string  `json:"date_joined"`
	IsActive       bool    `json:"is_active"`
	IsOwner        bool    `json:"is_owner"`
	IsAdmin        bool    `json:"is_admin"`
	IsGuest        bool    `json:"is_guest"`
	IsBot          bool    `json:"is_bot"`
	BotType        *int    `json:"bot_type"`
	Role           int     `json:"role"`
	Timezone       string  `json:"timezone"`
	AvatarURL      *string `json:"avatar_url"`
	AvatarVersion  int     `json:"avatar_version"`
	IsImportedStub bool    `json:"is_imported_stub"`
}

type plainEnvelope struct {
	Result  string      `json:"result"`
	Msg     string      `json:"msg"`
	Members []plainUser `json:"members"`
}

// BenchmarkGetUsers measures GET /users against encoding the same members
// with encoding/json alone, alternating the two in each iteration, and
// reports the median ratio (get-users time / baseline time) and the cost
// per user, for organizations of 1 000, 10 000 and 100 000 users on each
// backend (the cost must stay linear in the users).
func BenchmarkGetUsers(b *testing.B) {
	for _, backend := range backendsForBench {
		for _, n := range []int{1000, 10000, 100000} {
			b.Run(fmt.Sprintf("%s/%d", backend.name, n), func(b *testing.B) {
				store := backend.open(b)
				svc := chat.New(store, chat.Config{})
				b.Cleanup(func() { svc.Close() })
				org, err := svc.CreateOrg(context.Background(), chat.NewOrg{Name: "Bench", Host: host,
					OwnerEmail: "owner@example.com", OwnerName: "Owner"})
				if err != nil {
					b.Fatal(err)
				}
				seedUsers(b, store, org.RealmID, n-1)
				h := httpserver.New(svc, httpserver.Options{})
				owner := account{org.UserID, org.Email, org.APIKey}
				users, err := svc.Users(context.Background(), chat.AsUser(owner.id), chat.UserQuery{ClientGravatar: true})
				if err != nil {
					b.Fatal(err)
				}
				baseline := plainEnvelope{Result: "success", Members: make([]plainUser, len(users))}
				for i, u := range users {
					baseline.Members[i] = plainUser{
						UserID: u.UserID, DeliveryEmail: u.DeliveryEmail, Email: u.Email, FullName: u.FullName,
						DateJoined: u.DateJoined.Format("2006-01-02T15:04-07:00"), IsActive: u.IsActive,
						IsOwner: u.IsOwner, IsAdmin: u.IsAdmin, IsGuest: u.IsGuest, IsBot: u.IsBot,
						Role: int(u.Role), Timezone: u.Timezone, AvatarURL: u.AvatarURL,
						AvatarVersion: u.AvatarVersion, IsImportedStub: u.IsImportedStub,
					}
				}
				req := httptest.NewRequest(http.MethodGet, "http://"+host+"/api/v1/users", nil)
				req.SetBasicAuth(owner.email, owner.key)

				ratios := make([]float64, 0, b.N)
				var baseTotal, getTotal time.Duration
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					if _, err := json.Marshal(baseline); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					w := &discardWriter{header: http.Header{}}
					h.ServeHTTP(w, req)
					if w.code != http.StatusOK || w.n == 0 {
						b.Fatalf("GET /users: status %d, %d bytes", w.code, w.n)
					}
					t2 := time.Now()
					baseTotal += t1.Sub(t0)
					getTotal += t2.Sub(t1)
					ratios = append(ratios, float64(t2.Sub(t1))/float64(t1.Sub(t0)))
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "ratio-median")
				b.ReportMetric(float64(baseTotal.Microseconds())/float64(b.N), "baseline-µs/op")
				b.ReportMetric(float64(getTotal.Microseconds())/float64(b.N), "get-users-µs/op")
				b.ReportMetric(float64(getTotal.Nanoseconds())/float64(b.N)/float64(n), "get-users-ns/user")
			})
		}
	}
}

// discardWriter is a ResponseWriter that keeps only the status and the
// length, as a network connection would: the baseline does not keep its
// bytes either.
type discardWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *discardWriter) Header() http.Header  { return w.header }
func (w *discardWriter) WriteHeader(code int) { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}
