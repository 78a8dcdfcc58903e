package chat

import (
	"context"
	"errors"

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
// signed with Config.JWTSecret by one of Config.JWTAlgorithms; its exp and
// nbf claims are honoured. With includeProfile the answer carries the
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
		if len(s.cfg.JWTSecret) == 0 {
			return ErrJWTDisabled
		}
		if token == "" {
			return ErrJWTMissing
		}
		claims := jwt.MapClaims{}
		_, err = jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) {
			return s.cfg.JWTSecret, nil
		}, jwt.WithValidMethods(s.cfg.JWTAlgorithms), jwt.WithTimeFunc(s.cfg.Now))
		if err != nil {
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
		out = JWTLoginResult{APIKey: u.APIKey, Email: u.Email}
		if includeProfile {
			v := viewer{user: u, realm: realm, emailDomain: s.emailDomain(realm)}
			view := v.view(&u)
			out.User = &view
		}
		return nil
	})
	return out, err
}
