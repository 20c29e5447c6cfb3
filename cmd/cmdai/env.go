package main

import "os"

var getenv = os.Getenv
