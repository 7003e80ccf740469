"""Files that both processes share: durable renames (`durable`) and lock files (`locks`)."""
