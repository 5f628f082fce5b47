// Package listsel ties a numbered list in an assistant's reply to the items a
// tool returned, and a user's short answer ("3", "the third one", "第三个") to
// one entry of that list. The chat gateway uses it twice: when a reply presents
// a list, the stored turn carries the real items (events.Turn.Items, with their
// real refs) in the reply's order; when the next message picks from that list,
// the gateway states the item picked, so the assistant quotes the real ref
// instead of inventing one.
//
// Candidates collects the list-like objects of tool results, Entries reads
// the numbered list of a reply, Match pairs the two, and Select reads a pick.
// The context's recall uses two more: Positions, the entries a question of
// any length names by position ("what was the fifth bottle you
// recommended?"), and Marker, the entry number a line starts with, so that
// a long recalled list shows the entry asked about.
// All of it is pure text and JSON: no I/O, no model, nothing about any
// particular catalogue. The rules are about how lists are written and how
// people answer them, in English and Chinese.
//
// Precision comes first everywhere. A wrong item is far worse than none: with
// no list, the assistant asks or searches again; with a wrong one, it
// confidently hands over the wrong film, book or product. So every function
// gives up rather than guesses: Match returns nothing unless each entry names
// exactly one candidate and no two entries name the same one; Entries returns
// nothing when the numbering of the last list goes wrong; Select accepts a
// message only when every word in it is accounted for, and a bare number only
// when nothing around it could make it a count.
package listsel
