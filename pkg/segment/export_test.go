package segment

// Sources are gse's dictionary files as the segmenter reads them, for the
// tests that segment every word of them.
func Sources() []string { return []string{simplified, traditional} }
