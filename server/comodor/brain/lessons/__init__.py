"""Lessons: recall, teaching, merging restatements, lessons in words."""
