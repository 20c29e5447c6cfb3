package cmdx
