package chat_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// Example shows how a Go program embeds the service: an in-memory store, a
// zero Config, an organization with its owner, more users provisioned by the
// operator, and the user list as one of them sees it.
func Example() {
	ctx := context.Background()
	svc := chat.New(memory.New(), chat.Config{})
	defer svc.Close()

	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Acme", Host: "chat.acme.example",
		OwnerEmail: "boss@acme.example", OwnerName: "The Boss",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ann, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "ann@acme.example", FullName: "Ann Example",
		// Only administrators may see Ann's real address.
		EmailVisibility: chat.EmailVisibleAdmins,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	bob, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "bob@acme.example", FullName: "Bob Example", Role: chat.RoleGuest,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "robot@acme.example", FullName: "Robot", BotType: chat.BotGeneric, BotOwnerID: ann.UserID,
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Bob, a guest, sees Ann under her placeholder address only.
	users, err := svc.Users(ctx, chat.AsUser(bob.UserID), chat.UserQuery{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(users), "users")
	for _, u := range users {
		addr := "hidden"
		if u.DeliveryEmail != nil {
			addr = *u.DeliveryEmail
		}
		placeholder := u.Email != addr
		fmt.Printf("%-11s role=%d bot=%v placeholder-email=%v real=%s\n", u.FullName, u.Role, u.IsBot, placeholder, addr)
	}
	// Output:
	// 4 users
	// The Boss    role=100 bot=false placeholder-email=false real=boss@acme.example
	// Ann Example role=400 bot=false placeholder-email=true real=hidden
	// Bob Example role=600 bot=false placeholder-email=false real=bob@acme.example
	// Robot       role=400 bot=true placeholder-email=false real=robot@acme.example
}

// ExampleService_CreateUser shows that failures are *chat.Error values that
// compare with the exported sentinels under errors.Is and carry the wire
// code and message.
func ExampleService_CreateUser() {
	ctx := context.Background()
	svc := chat.New(memory.New(), chat.Config{})
	defer svc.Close()

	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Acme", OwnerEmail: "boss@acme.example", OwnerName: "The Boss",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	guest, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "gus@acme.example", FullName: "Gus Guest", Role: chat.RoleGuest,
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = svc.CreateUser(ctx, chat.AsUser(guest.UserID), "eve@acme.example", "secret-password", "Eve")
	fmt.Println(errors.Is(err, chat.ErrMustBeAdmin))
	var e *chat.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Msg)
	}

	_, err = svc.CreateUser(ctx, chat.AsUser(org.UserID), "eve@acme.example", "secret-password", "Eve|42")
	fmt.Println(err)
	// Output:
	// true
	// UNAUTHORIZED_PRINCIPAL Must be an organization administrator
	// BAD_REQUEST: Invalid format!
}
