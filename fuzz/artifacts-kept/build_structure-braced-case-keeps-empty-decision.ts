switch (args.a) {
  case "a0": {
    break;
  }
}
