package servecmd

import _ "example.com/fake/cmd/cmdai/internal/querycmd"
