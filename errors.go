package chat

import (
	"errors"
	"fmt"
)

// Code is an error code as it appears in the "code" field of the error
// envelope. The HTTP status that goes with each code is decided in one table
// in the httpserver package.
type Code string

// Error codes. The first group is named by the API's specification; the
// rest are the reference server's.
const (
	CodeBadRequest                   Code = "BAD_REQUEST"
	CodeUnauthorizedPrincipal        Code = "UNAUTHORIZED_PRINCIPAL"
	CodeReactionAlreadyExists        Code = "REACTION_ALREADY_EXISTS"
	CodeNoActivePushDevice           Code = "NO_ACTIVE_PUSH_DEVICE"
	CodeAdminActionRequired          Code = "ADMIN_ACTION_REQUIRED"
	CodeFailedToConnectBouncer       Code = "FAILED_TO_CONNECT_BOUNCER"
	CodeInternalServerErrorOnBouncer Code = "INTERNAL_SERVER_ERROR_ON_BOUNCER"

	CodeRequestVariableMissing        Code = "REQUEST_VARIABLE_MISSING"
	CodeRequestConfusingVar           Code = "REQUEST_CONFUSING_VAR"
	CodeRequestVariableInvalid        Code = "REQUEST_VARIABLE_INVALID"
	CodeUnauthorized                  Code = "UNAUTHORIZED"
	CodeAuthenticationFailed          Code = "AUTHENTICATION_FAILED"
	CodeUserDeactivated               Code = "USER_DEACTIVATED"
	CodeRealmDeactivated              Code = "REALM_DEACTIVATED"
	CodePasswordAuthDisabled          Code = "PASSWORD_AUTH_DISABLED"
	CodePasswordResetRequired         Code = "PASSWORD_RESET_REQUIRED"
	CodeNonexistentSubdomain          Code = "NONEXISTENT_SUBDOMAIN"
	CodeRateLimitHit                  Code = "RATE_LIMIT_HIT"
	CodeCannotDeactivateLastUser      Code = "CANNOT_DEACTIVATE_LAST_USER"
	CodeExpectationMismatch           Code = "EXPECTATION_MISMATCH"
	CodeBadNarrow                     Code = "BAD_NARROW"
	CodeStreamDoesNotExist            Code = "STREAM_DOES_NOT_EXIST"
	CodeReactionDoesNotExist          Code = "REACTION_DOES_NOT_EXIST"
	CodeRealmUploadQuota              Code = "REALM_UPLOAD_QUOTA"
	CodeInvalidVideoCallProviderToken Code = "INVALID_VIDEO_CALL_PROVIDER_TOKEN"
	CodeBadEventQueueID               Code = "BAD_EVENT_QUEUE_ID"
	CodePushServiceNotConfigured      Code = "PUSH_SERVICE_NOT_CONFIGURED"
	CodeStreamWildcardNotAllowed      Code = "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
	CodeTopicWildcardNotAllowed       Code = "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"

	// CodeNotFound answers a path that names no route. The reference server
	// answers such paths with an HTML page; we answer JSON everywhere.
	CodeNotFound Code = "NOT_FOUND"
	// CodeInternalServerError answers a failure that is not the client's
	// fault. Its message is always generic; the cause is only logged.
	CodeInternalServerError Code = "INTERNAL_SERVER_ERROR"
)

// Error is the one error type of the package. Every failure an operation
// reports to its caller is an *Error, so that the HTTP adapter can render it
// without guessing; anything else is a bug and is answered with a generic
// internal error.
type Error struct {
	// Code is the wire code, such as CodeBadRequest.
	Code Code
	// Msg is the exact client-visible text.
	Msg string
	// Data holds extra fields of the error envelope, such as "var_name".
	Data map[string]any
	// Err is the underlying cause. It is logged and never shown to clients.
	Err error
}

// Error returns the code and message, and the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code and message, so
// that the exported sentinels below work with errors.Is whatever cause or
// data a returned error carries.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Msg == e.Msg
}

// errorf returns a BAD_REQUEST error with a formatted message.
func errorf(format string, args ...any) *Error {
	return &Error{Code: CodeBadRequest, Msg: fmt.Sprintf(format, args...)}
}

// internal wraps an unexpected failure (a storage error, say) so that it is
// logged with its cause and answered with a generic message.
func internal(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: CodeInternalServerError, Msg: "Internal server error", Err: err}
}

// Sentinel errors with fixed texts. Compare with errors.Is.
var (
	// Authentication.
	ErrNotLoggedIn          = &Error{Code: CodeUnauthorized, Msg: "Not logged in: API authentication or user session required"}
	ErrBasicAuthRequired    = &Error{Code: CodeBadRequest, Msg: "This endpoint requires HTTP basic authentication."}
	ErrInvalidBasicAuth     = &Error{Code: CodeUnauthorized, Msg: "Invalid authorization header for basic auth"}
	ErrMalformedAPIKey      = &Error{Code: CodeUnauthorized, Msg: "Malformed API key"}
	ErrInvalidAPIKey        = &Error{Code: CodeUnauthorized, Msg: "Invalid API key"}
	ErrAccountDeactivated   = &Error{Code: CodeUnauthorized, Msg: "Account is deactivated"}
	ErrRealmDeactivated     = &Error{Code: CodeUnauthorized, Msg: "This organization has been deactivated"}
	ErrWrongSubdomain       = &Error{Code: CodeUnauthorized, Msg: "Account is not associated with this subdomain"}
	ErrWebhookBotNotAllowed = &Error{Code: CodeUnauthorized, Msg: "This API is not available to incoming webhook bots."}

	// Login.
	ErrInvalidSubdomain      = &Error{Code: CodeNonexistentSubdomain, Msg: "Invalid subdomain"}
	ErrAuthenticationFailed  = &Error{Code: CodeAuthenticationFailed, Msg: "Your username or password is incorrect"}
	ErrLoginUserDeactivated  = &Error{Code: CodeUserDeactivated, Msg: "Account is deactivated"}
	ErrLoginRealmDeactivated = &Error{Code: CodeRealmDeactivated, Msg: "This organization has been deactivated"}
	ErrEnterValidEmail       = &Error{Code: CodeBadRequest, Msg: "Enter a valid email address."}
	ErrPasswordAuthDisabled  = &Error{Code: CodePasswordAuthDisabled, Msg: "Password auth is disabled in this organization."}

	// Roles and permissions.
	ErrMustBeAdmin            = &Error{Code: CodeUnauthorizedPrincipal, Msg: "Must be an organization administrator"}
	ErrMustBeOwner            = &Error{Code: CodeUnauthorizedPrincipal, Msg: "Must be an organization owner"}
	ErrMustBeMember           = &Error{Code: CodeUnauthorizedPrincipal, Msg: "Must be an organization member"}
	ErrNotAllowedForGuests    = &Error{Code: CodeBadRequest, Msg: "Not allowed for guest users"}
	ErrBotsNotAllowed         = &Error{Code: CodeBadRequest, Msg: "This endpoint does not accept bot requests."}
	ErrInsufficientPermission = &Error{Code: CodeBadRequest, Msg: "Insufficient permission"}

	// Users.
	ErrNoSuchUser            = &Error{Code: CodeBadRequest, Msg: "No such user"}
	ErrUserDeactivated       = &Error{Code: CodeBadRequest, Msg: "User is deactivated"}
	ErrCannotDeactivateOwner = &Error{Code: CodeBadRequest, Msg: "Cannot deactivate the only organization owner"}
	ErrEmailInUse            = &Error{Code: CodeBadRequest, Msg: "Email is already in use."}
	ErrBadEmail              = &Error{Code: CodeBadRequest, Msg: "Bad name or username"}
	ErrNameTooLong           = &Error{Code: CodeBadRequest, Msg: "Name too long!"}
	ErrNameTooShort          = &Error{Code: CodeBadRequest, Msg: "Name too short!"}
	ErrNameInvalidChars      = &Error{Code: CodeBadRequest, Msg: "Invalid characters in name!"}
	ErrNameInvalidFormat     = &Error{Code: CodeBadRequest, Msg: "Invalid format!"}
	ErrPasswordTooWeak       = &Error{Code: CodeBadRequest, Msg: "The password is too weak."}
)

// MissingArgument returns the REQUEST_VARIABLE_MISSING error for a required
// parameter that was not sent, with its var_name envelope field.
func MissingArgument(name string) *Error {
	return &Error{
		Code: CodeRequestVariableMissing,
		Msg:  fmt.Sprintf("Missing '%s' argument", name),
		Data: map[string]any{"var_name": name},
	}
}
