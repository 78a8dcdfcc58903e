package chat

import (
	"context"
	"errors"
	"strings"

	"github.com/golang-jwt/jwt/v5"
	"github.com/teamchat/chat/storage"
)

// JWT login errors.
var (
	ErrJWTDisabled     = &Error{Code: CodeBadRequest, Msg: "JWT authentication is not enabled for this organization"}
	ErrJWTMissing      = &Error{Code: CodeBadRequest, Msg: "No JSON web token passed in request"}
	ErrJWTBad          = &Error{Code: CodeBadRequest, Msg: "Bad JSON web token"}
	ErrJWTEmailMissing = &Error{Code: CodeBadRequest, Msg: "No email specified in JSON web token claims"}
)

// JWTLoginResult is the answer of FetchAPIKeyJWT. User is set only when
// the profile was asked for; it then has no profile_data.
type JWTLoginResult struct {
	APIKey string
	// Email is the user's real address.
	Email string
	User  *User
}

// FetchAPIKeyJWT logs in with a JSON web token at the organization reached
// through host, and returns the API key of the user named by the token's
// "email" claim (compared without regard to case). The token must be
// signed by one of Config.JWTAlgorithms with the organization's key of
// Config.JWTKeys, else with Config.JWTSecret; its exp and nbf claims are
// honoured (exp is required with Config.JWTRequireExpiry), and an aud claim must name the organization (host or URL). With includeProfile the answer carries the
// user's object as GET /users gives it with client_gravatar off. The first
// login of an account sets its date_joined, as FetchAPIKey does. Anyone may
// call it.
//
// Errors, in the order they are checked: ErrInvalidSubdomain;
// ErrJWTDisabled; ErrJWTMissing; ErrJWTBad; ErrJWTEmailMissing;
// ErrAuthenticationFailed; ErrLoginUserDeactivated;
// ErrLoginRealmDeactivated.
func (s *Service) FetchAPIKeyJWT(ctx context.Context, host, token string, includeProfile bool) (JWTLoginResult, error) {
	var out JWTLoginResult
	err := s.update(ctx, noActor, func(tx storage.Tx) error {
		realm, err := s.realmForHost(tx, host)
		if err != nil {
			return err
		}
		key := s.cfg.JWTSecret
		if own, ok := s.cfg.JWTKeys[realm.Host]; ok {
			key = own
		}
		if len(key) == 0 {
			return ErrJWTDisabled
		}
		if token == "" {
			return ErrJWTMissing
		}
		claims := jwt.MapClaims{}
		opts := []jwt.ParserOption{jwt.WithValidMethods(s.cfg.JWTAlgorithms), jwt.WithTimeFunc(s.cfg.Now)}
		if s.cfg.JWTRequireExpiry {
			opts = append(opts, jwt.WithExpirationRequired())
		}
		_, err = jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) {
			return key, nil
		}, opts...)
		if err != nil || !audienceAllows(claims, realm) {
			return ErrJWTBad
		}
		email, ok := claims["email"].(string)
		if !ok || email == "" {
			return ErrJWTEmailMissing
		}
		u, err := tx.UserByEmail(realm.ID, email)
		if errors.Is(err, storage.ErrNotFound) {
			return ErrAuthenticationFailed
		}
		if err != nil {
			return err
		}
		if !u.IsActive {
			return ErrLoginUserDeactivated
		}
		if realm.Deactivated {
			return ErrLoginRealmDeactivated
		}
		if err := s.recordLogin(tx, &u); err != nil {
			return err
		}
		apiKey, err := s.shownAPIKey(u.APIKey)
		if err != nil {
			return err
		}
		out = JWTLoginResult{APIKey: apiKey, Email: u.Email}
		if includeProfile {
			v := viewer{user: u, realm: realm, emailDomain: s.emailDomain(realm)}
			view := v.view(&u)
			out.User = &view
		}
		return nil
	})
	return out, err
}

// audienceAllows reports whether a token may log in to realm: a token
// without an aud claim may (the reference's tokens have none); one with it
// must name the organization, by its host or its URL, so that a token
// meant for one organization does not open another that shares the key.
func audienceAllows(claims jwt.MapClaims, realm Realm) bool {
	aud, err := claims.GetAudience()
	if err != nil {
		return false
	}
	if len(aud) == 0 {
		return true
	}
	for _, a := range aud {
		if a == realm.Host || strings.TrimRight(a, "/") == realm.URL {
			return true
		}
	}
	return false
}
