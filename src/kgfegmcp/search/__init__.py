"""Package-local lexical and code search (no embeddings, no hidden synonyms)."""
