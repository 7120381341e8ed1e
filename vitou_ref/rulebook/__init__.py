"""The rulebook: the whole spec as a book a person reads, in Markdown and as one page, in the audit's words."""
