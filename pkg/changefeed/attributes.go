package changefeed

import (
	"context"
	"fmt"
	"slices"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/store"
)

// AttributeChanges are the changes that the assertions changed made to one
// user's attributes, read from all of the user's assertions of their keys
// (as, the changed ones included) as attribute.Resolve places them:
//
//   - a put among changed is asserted, with the status it has now;
//   - a value that a changed assertion ended is superseded (by a put) or
//     removed (by a removal), at the time it ended.
//
// A removal that ended nothing, or was ignored, changes nothing. Each
// change's id is derived from the assertions it is about, so deriving them
// again (a redelivery) gives the same ids.
func AttributeChanges(schema *attribute.Schema, tenantID, userID string, as, changed []attribute.Assertion) []contract.Change {
	type ident struct{ event, key, item, op string }
	isChanged := map[ident]bool{}
	// ends are the changed assertions' (event, key): what a value's
	// EndedBy names.
	ends := map[[2]string]bool{}
	for _, a := range changed {
		isChanged[ident{a.EventID, a.Key, a.Item, a.Op}] = true
		ends[[2]string{a.EventID, a.Key}] = true
	}
	var out []contract.Change
	for _, v := range attribute.Resolve(schema, as).History {
		wire := AttributeValue(schema, v)
		wire.ValidFrom = wire.ValidFrom.UTC() // the feed's times are UTC, as its At
		if v.Op == attribute.Put && isChanged[ident{v.EventID, v.Key, v.Item, v.Op}] {
			out = append(out, contract.Change{V: contract.ChangeVersion,
				ID:   ID(contract.ChangeAttributeAsserted, tenantID, userID, v.EventID, v.Key, v.Item, v.Op),
				Type: contract.ChangeAttributeAsserted, TenantID: tenantID, UserID: userID, At: v.At.UTC(), Attribute: &wire})
		}
		if v.ValidTo != nil && ends[[2]string{v.EndedBy, v.Key}] {
			typ := contract.ChangeAttributeSuperseded
			if v.Status == attribute.Retracted {
				typ = contract.ChangeAttributeRemoved
			}
			out = append(out, contract.Change{V: contract.ChangeVersion,
				ID:   ID(typ, tenantID, userID, v.EventID, v.Key, v.Item, v.Op, v.EndedBy),
				Type: typ, TenantID: tenantID, UserID: userID, At: v.ValidTo.UTC(), Attribute: &wire})
		}
	}
	Sort(out)
	return out
}

// AttributeValue is a value of a user's attributes as the contract carries it,
// its group from the schema: the one mapping, which the API's attributes
// (pkg/memory) use too.
func AttributeValue(s *attribute.Schema, v attribute.Value) contract.AttributeValue {
	k, _ := s.Key(v.Key)
	return contract.AttributeValue{Key: v.Key, Group: k.Group, Item: v.Item, Value: v.Value, Op: v.Op, Source: v.Source,
		Status: v.Status, EventID: v.EventID, Evidence: v.Evidence, SessionID: v.SessionID, Confidence: v.Confidence,
		ValidFrom: v.At, ValidTo: v.ValidTo, EndedBy: v.EndedBy}
}

// Attributes derives the changes that the stored assertions rows made (the
// rows a store write reported new, and those of redelivered messages),
// reading each of their users' assertions of the keys they touch, one
// query per tenant.
func Attributes(ctx context.Context, st *store.Store, schemas *attribute.Schemas, rows []store.AssertionRow) ([]contract.Change, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	type user struct{ tenant, id string }
	changed := map[user][]attribute.Assertion{}
	var users []user
	tenants := map[string][]string{}
	keys := map[string][]string{}
	for _, r := range rows {
		u := user{r.TenantID, r.UserID}
		if _, ok := changed[u]; !ok {
			users = append(users, u)
			tenants[u.tenant] = append(tenants[u.tenant], u.id)
		}
		changed[u] = append(changed[u], r.Assertion)
		if !slices.Contains(keys[u.tenant], r.Key) {
			keys[u.tenant] = append(keys[u.tenant], r.Key)
		}
	}
	stored := map[user][]attribute.Assertion{}
	for tenant, ids := range tenants {
		byUser, err := st.Tenant(tenant).AssertionsOfKeys(ctx, ids, keys[tenant])
		if err != nil {
			return nil, fmt.Errorf("attribute changes: %w", err)
		}
		for id, as := range byUser {
			stored[user{tenant, id}] = as
		}
	}
	var out []contract.Change
	for _, u := range users {
		out = append(out, AttributeChanges(schemas.For(u.tenant), u.tenant, u.id, stored[u], changed[u])...)
	}
	return out, nil
}
