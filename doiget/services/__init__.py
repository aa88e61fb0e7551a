"""Per-capability services behind the `doiget.Library` facade."""
