"""What the API reads: runs and their events (paged, followed live), chats, audit, previews, retention."""
