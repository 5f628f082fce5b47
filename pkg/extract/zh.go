package extract

// chinese runs the rules that need word boundaries: transliterated names,
// context patterns, person-name tags, organisations and bands.
func (st *state) chinese() {
	st.toks = tokenize(st.r.seg, st.text, nil)
	st.bound = make([]bool, len(st.text)+1)
	for _, t := range st.toks {
		st.bound[t.start] = true
		st.bound[t.end] = true
	}
	st.dotNames()
	st.anchored()
	st.nameTags()
	st.organisations()
}
