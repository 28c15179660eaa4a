"""Recall: the lesson index, its snapshot file, ranking, and the words it sees."""
