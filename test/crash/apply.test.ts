import { crashMatrix } from "./matrix.js"

crashMatrix(0)
