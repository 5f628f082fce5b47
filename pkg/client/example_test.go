package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
)

// A chat backend's turn: remember what was said and shown, and read the
// context for the next prompt with the user's current message.
func Example() {
	ctx := context.Background()
	c, err := client.New("http://127.0.0.1:8080", client.WithTenant("acme"), client.WithKey("the tenant's key"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.AddTurns(ctx,
		&events.Turn{UserID: "u-42", SessionID: "s-1", Role: events.RoleUser, Content: "Any science fiction like Dune?"},
		&events.Turn{UserID: "u-42", SessionID: "s-1", Role: events.RoleAssistant, Content: "Here are three:",
			Items: []events.Item{{Ref: "/book/823D", Title: "The Three-Body Problem"}, {Ref: "/book/77A1", Title: "Ball Lightning"}, {Ref: "/book/19F0", Title: "Hyperion"}}},
	)
	if err != nil {
		log.Fatal(err)
	}
	mem, err := c.Context(ctx, client.ContextParams{UserID: "u-42", SessionID: "s-1", Query: "tell me more about the second one"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mem.Prompt) // into the system prompt of the next model call
}

// "The user answered 3": the item of the list last shown, with its real ref.
func ExampleClient_Selection() {
	c, _ := client.New("http://127.0.0.1:8080", client.WithTenant("acme"))
	sel, err := c.Selection(context.Background(), "s-1", 3)
	var e *client.Error
	switch {
	case errors.As(err, &e) && e.Code == "out_of_range":
		fmt.Println("the list is shorter:", e.Fields[0].Message)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(sel.Ref())
	}
}

// An invalid turn is refused whole, every field named.
func ExampleError() {
	err := error(&client.Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: "invalid turn(s); nothing was accepted",
		Fields: []client.FieldError{{Field: "[0].role", Message: `unknown role "bot"`}}})
	var e *client.Error
	if errors.As(err, &e) {
		msg, _ := e.Field("[0].role")
		fmt.Println(e.Status, e.Code, msg)
	}
	// Output: 400 invalid_request unknown role "bot"
}
