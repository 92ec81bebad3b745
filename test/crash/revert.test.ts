import { crashMatrix } from "./matrix.js"

crashMatrix(2)
