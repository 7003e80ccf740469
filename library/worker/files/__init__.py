"""What stored files hold: kinds, decoders, thumbnails and their cap, analysis. Worker process."""
