"""Reading and writing files a repository or a server controls: bounded, never through a link."""
