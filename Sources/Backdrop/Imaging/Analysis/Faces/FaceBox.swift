/// A face found in a photo: its box in the pixels of the image searched.
struct FaceBox: Sendable, Equatable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int

    static let minNeighbours = 3
    static let similarity = 0.2

    /// The windows found grouped as OpenCV's `groupRectangles` does: windows whose sides lie within a fifth of the
    /// smaller size of each other are one group, a group of more than ``minNeighbours`` windows is a face (their
    /// average box), and a face inside a stronger one is dropped.
    static func grouped(_ boxes: [FaceBox]) -> [FaceBox] {
        var parent = Array(boxes.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for a in boxes.indices {
            for b in boxes.indices where b > a && boxes[a].isSimilar(to: boxes[b]) { parent[root(a)] = root(b) }
        }
        var members = [Int: [FaceBox]]()
        for index in boxes.indices { members[root(index), default: []].append(boxes[index]) }
        let groups = members.values.filter { $0.count > Self.minNeighbours }.map { group in
            let n = Double(group.count)
            func mean(_ value: (FaceBox) -> Int) -> Int { Int(total: (Double(group.map(value).reduce(0, +)) / n).rounded()) }
            return (box: FaceBox(x: mean(\.x), y: mean(\.y), width: mean(\.width), height: mean(\.height)), count: group.count)
        }
        return groups.filter { inner in
            !groups.contains { outer in
                let (dx, dy) = (Int(total: Double(outer.box.width) * Self.similarity), Int(total: Double(outer.box.height) * Self.similarity))
                return outer.box != inner.box && inner.box.x >= outer.box.x - dx && inner.box.y >= outer.box.y - dy
                    && inner.box.x + inner.box.width <= outer.box.x + outer.box.width + dx
                    && inner.box.y + inner.box.height <= outer.box.y + outer.box.height + dy
                    && (outer.count > max(3, inner.count) || inner.count < 3)
            }
        }.map(\.box).sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }

    private func isSimilar(to other: FaceBox) -> Bool {
        let delta = Self.similarity * Double(min(self.width, other.width) + min(self.height, other.height)) / 2
        return Double(abs(self.x - other.x)) <= delta && Double(abs(self.y - other.y)) <= delta
            && Double(abs(self.x + self.width - other.x - other.width)) <= delta
            && Double(abs(self.y + self.height - other.y - other.height)) <= delta
    }
}
