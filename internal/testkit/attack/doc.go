// Package attack is a standing suite of attacks on a whole Recall (`recall
// run` with API_KEYS set, its embedded NATS server, its gateway in front of
// a fake upstream that records every request), run by `make test`: one
// user of a tenant writing into or reading another user's session through
// every front door (HTTP, MCP bound to a user, the gateway, a turn on the
// stream), forgetting with sessions shared before a session had one owner,
// paths that would take the gateway out of the upstream's /v1, anonymous
// publishers on the NATS port, and the bad input each door must refuse by
// name. Each attempt is judged held or not; the suite prints the table of
// attempts and held per kind, and fails on any that did not hold.
package attack
