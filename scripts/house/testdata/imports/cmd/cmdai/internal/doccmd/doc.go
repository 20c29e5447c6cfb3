package doccmd
