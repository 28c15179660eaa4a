"""Progress: whether the assistant is getting better, honestly tested."""
