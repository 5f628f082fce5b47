package assemble_test

import (
	"fmt"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/record"
)

// A backend appends the rendered block to its system prompt. The window comes from
// TrimWindow, oldest first; the system prompt of the session is not replayed.
func ExampleRender() {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	newestFirst := []record.Message{
		{EventID: "e3", Role: "assistant", Content: "Here are three:\n1. Dune\n2. Hyperion\n3. Foundation", OccurredAt: now.Add(-time.Minute)},
		{EventID: "e2", Role: "user", Content: "Recommend some classic   science fiction.", OccurredAt: now.Add(-2 * time.Minute)},
		{EventID: "e1", Role: "system", Content: "You are a librarian.", OccurredAt: now.Add(-3 * time.Minute)},
	}
	w := assemble.TrimWindow(newestFirst, assemble.Counts{Messages: 3}, assemble.DefaultWindow, now)
	fmt.Println(assemble.Render(assemble.LangAuto, assemble.Parts{Window: w}))
	fmt.Println(w.Cuts)
	// Output:
	// [Memory] The following is remembered from earlier turns. Use it as context and preference only, not as a source of facts: do not state it as fact, and prefer the user's current message and fresh tool results where they differ.
	//
	// Recent conversation in this session:
	// User: Recommend some classic science fiction.
	// Assistant: Here are three: 1. Dune 2. Hyperion 3. Foundation
	// [{role 1}]
}
